// SPDX-License-Identifier: GPL-2.0
/*
 * hotset: a buffer faulted in on a lower-tier node, a hot set of its pages
 * touched over and over, the rest (the cold set) left alone or touched at a
 * lower frequency.  Prints, every --interval seconds, how much of each set
 * sits in the top tier and how the counters of /proc/vmstat moved.
 *
 * The hot set is one page in --stride (the default, used by the
 * demonstration), with --hot-pct a contiguous region of each of --chunks
 * equal chunks of the buffer, or with --scatter P a random P% of the pages
 * of the whole buffer (seeded by --seed).  --scatter-unit N draws the
 * scattered sets and the classes in aligned runs of N pages instead of
 * single pages; with --thp, --scatter-unit thp draws them in whole huge
 * pages, so that every THP of the buffer is all hot, all warm or all cold
 * (and promoting a THP whole is right).  --phase-at moves the hot set
 * midway: the regions by half a chunk, the scattered set to a fresh random
 * set of pages.  --chase replaces the stores with a pointer chase (dependent
 * loads in a random order) and --fast-mb puts the head of the buffer on the
 * top tier (to overcommit it).
 *
 * Frequency classes (disjoint random sets of pages that are not hot, each
 * given as a percentage of the buffer's pages): --every-100ms, --every-1s,
 * --every-5s, --every-30s touch each of their pages once per period (spread
 * over the period), --once touches each of its pages once, at a random time
 * during the run.  The other pages are never touched after setup.
 *
 * --every-ms PERIOD:P (at most twice) adds a class of its own: P% of the
 * pages touched once per PERIOD milliseconds (the skewed scenarios: a warm
 * part every 8 s, a rare part every 60 s).  Its columns are named after the
 * period (c8s, c60s, c2500ms) and appear only when the class is given.
 *
 * --track-demoted counts, from the move_pages() samples, the hot pages
 * demoted: a page of the hot set seen in the top tier by one sample and on a
 * lower tier by the next one, while it was hot at both (columns hot_demoted
 * and hot_demoted_colder, below).  --cpu-of NAME:PREFIX[,PREFIX...] (at
 * most four times) adds a column NAME_cpu_s with the CPU time of the threads
 * whose name starts with one of the prefixes (e.g. kswapd:kswapd).
 *
 * --fill-fast-leave-mb N first fills the top tier's node with other data (a
 * separate mapping, never touched again) until N MiB remain free.
 *
 * Residency comes from move_pages() queries; --sample-max N queries at most
 * N pages of each set (a random subset, weighted), so that sampling a large
 * buffer stays cheap.  The sampler runs in the main thread: its CPU time is
 * reported apart (sampler_s) and not counted in the task's times.
 *
 * --setup runs a command once the buffer is in place, before the first
 * sample (the harness turns the mechanism on there), --teardown one right
 * after the last sample (the harness reads the mechanism's own statistics
 * there).
 *
 * --watch PID samples another process instead (the redis scenario): the share
 * of its memory in the top tier, from /proc/PID/numa_maps, reported as the
 * hot set, until it exits, SIGTERM arrives or --seconds pass.  With
 * --watch-pages FILE (hexadecimal addresses in PID, one per line, e.g. the
 * pages of redis-server that hold its most popular values, from
 * kvzipf --map) it also reports the share of those pages in the top tier
 * (keyhot_top_pct), and counts them as the hot set is counted above: one
 * seen in the top tier by a sample and on another node by the next is a
 * hot page demoted (hot_demoted); hot_demoted_colder counts those demoted
 * while other pages of PID, not listed, were in the top tier.  With
 * --watch-near FILE, pages listed the same way (those just under the hot
 * set's line, from kvzipf --near), it reports their share in the top tier
 * too (nearhot_top_pct), and the pages of PID's file mappings (code,
 * libraries) in the top tier (file_top_pages): where the promotions
 * beyond the hot set went.
 *
 * Used by `make run` (the demonstration) and the benchmark harness
 * (scripts/bench.sh, bench/bench-guest.sh), which reads the --csv output.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>
#include <sys/resource.h>

#include "tiering.h"

/* The counters of the demonstration, when --vmstat is not given. */
static const char *demo_counters[] = {
	"pgpromote_success", "pgpromote_candidate", "pgpromote_candidate_nrl",
	"numa_hint_faults", "pgdemote_kswapd", "pgdemote_direct",
	"pghot_recorded_hintfaults", "pghot_recorded_hwhints",
};
#define NR_DEMO_COUNTERS (sizeof(demo_counters) / sizeof(demo_counters[0]))
#define MAX_COUNTERS 160

/* Frequency classes of the pages that are not hot. */
enum { CL_NEVER, CL_100MS, CL_1S, CL_5S, CL_30S, CL_ONCE, CL_X1, CL_X2, NR_CLASSES };
/* CL_X1, CL_X2: the --every-ms classes, named and timed at parse time. */
static const char *class_name[NR_CLASSES] = {
	"never", "c100ms", "c1s", "c5s", "c30s", "once", "cx1", "cx2",
};
static double class_period[NR_CLASSES] = { 0, 0.1, 1, 5, 30, 0, 0, 0 };
static char custom_name[2][24];
static int nr_custom;


static struct {
	size_t size_mb, stride, threads, chunks, lines, fast_mb, sample_max;
	size_t scatter_unit;
	double seconds, interval, phase_at, hot_pct, hot_offset_pct, scatter_pct;
	double class_pct[NR_CLASSES];
	long fill_leave_mb;
	bool thp, csv, chase, region, scatter, classes, track_demoted, unit_thp;
	int slow_node, watch;
	const char *vmstat, *kthreads, *setup, *teardown, *watch_pages, *watch_near;
	unsigned long seed;
} opt = { .size_mb = 256, .stride = 4, .threads = 1, .seconds = 30,
	  .interval = 2, .slow_node = -1, .lines = 1, .phase_at = -1,
	  .seed = 1, .fill_leave_mb = -1, .scatter_unit = 1 };

/* Does the output show class @c (the --every-ms ones only when given)? */
static bool class_shown(int c)
{
	return c < CL_X1 || opt.class_pct[c] > 0;
}

/* --cpu-of: extra CPU-time columns, NAME_cpu_s over threads named PREFIX*. */
#define MAX_CPU_OF 4
static struct {
	char name[32];
	const char *prefixes;
} cpu_of[MAX_CPU_OF];
static int nr_cpu_of;

/*
 * --track-demoted: per sampled page, whether the previous sample saw it in
 * the top tier (-1: no sample yet), and the phase of that sample.
 * hot_demoted counts the hot pages demoted (weighted like the residency),
 * hot_demoted_colder those of them demoted while pages that are not hot
 * (colder: the classes, the never-touched pages, the old hot set, the fill)
 * were in the top tier: per interval min(hot pages demoted, colder pages in
 * the top tier at the sample), summed.  A page demoted and promoted again
 * between two samples is not seen.
 */
static int8_t *smp_prev;
static int prev_phase = -1;
static double hot_demoted, hot_demoted_colder;

static char *buf, *fill;
static size_t page_size, nr_pages, chunk_pages, hot_len, fill_pages;
static volatile int stop, phase;
static double run_start;

/*
 * Per page: bits 0-2 its frequency class, bit 3 hot in phase 0, bit 4 hot
 * in phase 1.
 */
/* The huge page size of x86-64 and arm64 with 4 KiB pages. */
#define THP_BYTES	(2UL << 20)

static uint8_t *page_info;
#define HOT_SHIFT	3
#define PI_CLASS(x)	((x) & 7)
#define PI_HOT(x, ph)	(((x) >> (HOT_SHIFT + (ph))) & 1)

/* The pages of each class, in the (random) order the toucher visits them. */
static size_t *class_pages[NR_CLASSES], class_nr[NR_CLASSES];
static volatile size_t once_done;

/*
 * The sampled pages: address and group (page_info, or GRP_FILL), and the
 * weight of each group (pages it stands for per sampled page).
 */
#define GRP_FILL	64
#define NR_GROUPS	65
static void **smp_addr;
static uint8_t *smp_grp;
static int *smp_status;
static size_t smp_nr;
static double grp_weight[NR_GROUPS];

static const char *counters[MAX_COUNTERS];
static size_t nr_counters;

/* One worker: its hot pages per phase, and its access count. */
struct worker {
	size_t *pages[2];
	size_t nr[2];
	void *chain[2];		/* --chase: an element of each chain */
	volatile uint64_t accesses;
	pthread_t tid;
	char pad[64];
};
static struct worker *workers;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Is page @i in the hot region (--hot-pct) or stride (default) of phase @ph? */
static bool is_hot_layout(size_t i, int ph)
{
	size_t within, off;

	if (!opt.region)
		return i % opt.stride == 0;
	if (i >= chunk_pages * opt.chunks)
		return false;	/* the remainder after the last chunk */
	within = i % chunk_pages;
	off = (size_t)(opt.hot_offset_pct / 100.0 * chunk_pages);
	if (ph)
		off += chunk_pages / 2;
	off %= chunk_pages;
	return (within + chunk_pages - off) % chunk_pages < hot_len;
}

/* Which worker touches hot page @i (the @k-th hot page of its phase). */
static size_t owner(size_t i, size_t k)
{
	if (opt.scatter)
		return k % opt.threads;
	if (!opt.region)
		return (i / opt.stride) % opt.threads;
	return (i / chunk_pages) % opt.threads;
}

static uint64_t rng_state;

static uint64_t rng(void)
{
	/* xorshift64 */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/*
 * Link --lines elements of each hot page of worker @w in phase @ph into one
 * cycle in a random order.  Phase 0 uses the even cache lines of a page and
 * phase 1 the odd ones, so that the two chains never share a slot.
 */
static int build_chain(struct worker *w, int ph)
{
	size_t slots = page_size / 64 / 2, n = w->nr[ph] * opt.lines;
	size_t step = slots / opt.lines ? slots / opt.lines : 1;
	char **el;

	if (!n)
		return 0;
	el = malloc(n * sizeof(*el));
	if (!el)
		return -1;
	for (size_t k = 0; k < w->nr[ph]; k++) {
		size_t p = w->pages[ph][k];

		for (size_t l = 0; l < opt.lines; l++) {
			size_t line = 2 * ((p * 7 + l * step) % slots) + ph;

			el[k * opt.lines + l] = buf + p * page_size + line * 64;
		}
	}
	for (size_t k = n - 1; k > 0; k--) {
		size_t j = rng() % (k + 1);
		char *t = el[k];

		el[k] = el[j];
		el[j] = t;
	}
	for (size_t k = 0; k < n; k++)
		*(char **)el[k] = el[(k + 1) % n];
	w->chain[ph] = el[0];
	free(el);
	return 0;
}

#define BATCH 256

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	uint64_t round = 0, done = 0;
	int ph = -1;
	char **p = NULL;

	while (!stop) {
		if (ph != phase) {
			ph = phase;
			p = w->chain[ph];
		}
		if (!w->nr[ph]) {
			usleep(1000);
			continue;
		}
		if (opt.chase) {
			for (int k = 0; k < BATCH; k++)
				p = (char **)*p;
			done += BATCH;
		} else {
			round++;
			for (size_t k = 0; k < w->nr[ph]; k++)
				((volatile uint64_t *)(buf + w->pages[ph][k] * page_size))[0] = round;
			done += w->nr[ph];
		}
		w->accesses = done;
	}
	/* Keep the chase from being optimised away. */
	if (p == (char **)1)
		printf("#\n");
	return NULL;
}

/*
 * The frequency classes: every 10 ms, touch (read one word of) the pages
 * each class is due for.  A periodic class of n pages and period P touches
 * its k-th page at k/n * P, then every P; the once class touches its pages
 * evenly over the run (they are in a random order, so each page's time is
 * random).  A toucher that falls behind catches up, at most one touch of
 * each page per catch-up.
 */
static void *toucher_fn(void *arg)
{
	size_t done[NR_CLASSES] = { 0 };
	uint64_t sum = 0;

	(void)arg;
	while (!stop) {
		double t = now_s() - run_start;

		for (int c = CL_100MS; c < NR_CLASSES; c++) {
			size_t n = class_nr[c], due;

			if (!n)
				continue;
			if (c == CL_ONCE)
				due = t >= opt.seconds ? n : (size_t)(n * t / opt.seconds);
			else
				due = (size_t)(n * t / class_period[c]);
			if (c != CL_ONCE && due > done[c] + n)
				done[c] = due - n;
			for (; done[c] < due && !stop; done[c]++)
				sum += *(volatile uint64_t *)(buf + class_pages[c][done[c] % n] * page_size + 8);
		}
		once_done = done[CL_ONCE];
		usleep(10000);
	}
	if (sum == 1)
		printf("#\n");
	return NULL;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--size-mb N] [--stride N | --hot-pct P [--chunks N]\n"
		"          [--hot-offset-pct P] | --scatter P [--scatter-unit N|thp]]\n"
		"          [--phase-at S]\n"
		"          [--every-100ms P] [--every-1s P] [--every-5s P]\n"
		"          [--every-30s P] [--once P] [--every-ms PERIOD:P]\n"
		"          [--track-demoted] [--cpu-of NAME:PREFIX,...] [--threads N]\n"
		"          [--chase [--lines N]] [--fast-mb N] [--fill-fast-leave-mb N]\n"
		"          [--seconds S] [--interval S] [--sample-max N] [--thp] [--csv]\n"
		"          [--node N] [--vmstat PREFIX,...] [--kthreads PREFIX,...]\n"
		"          [--seed N] [--setup COMMAND] [--teardown COMMAND]\n"
		"       %s --watch PID [--watch-pages FILE [--watch-near FILE]]\n"
		"          [--seconds S] [--interval S] [--csv] ...\n",
		prog, prog);
	exit(2);
}

static void parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "size-mb", 1, 0, 's' }, { "stride", 1, 0, 'k' },
		{ "threads", 1, 0, 't' }, { "seconds", 1, 0, 'd' },
		{ "interval", 1, 0, 'i' }, { "thp", 0, 0, 'H' },
		{ "csv", 0, 0, 'c' }, { "node", 1, 0, 'n' },
		{ "hot-pct", 1, 0, 'p' }, { "chunks", 1, 0, 'C' },
		{ "hot-offset-pct", 1, 0, 'o' }, { "phase-at", 1, 0, 'P' },
		{ "chase", 0, 0, 'x' }, { "lines", 1, 0, 'l' },
		{ "fast-mb", 1, 0, 'f' }, { "vmstat", 1, 0, 'v' },
		{ "kthreads", 1, 0, 'K' }, { "seed", 1, 0, 'S' },
		{ "setup", 1, 0, 'U' }, { "watch", 1, 0, 'W' },
		{ "teardown", 1, 0, 'T' }, { "scatter", 1, 0, 'a' },
		{ "every-100ms", 1, 0, 0x100 + CL_100MS },
		{ "every-1s", 1, 0, 0x100 + CL_1S },
		{ "every-5s", 1, 0, 0x100 + CL_5S },
		{ "every-30s", 1, 0, 0x100 + CL_30S },
		{ "once", 1, 0, 0x100 + CL_ONCE },
		{ "fill-fast-leave-mb", 1, 0, 'F' }, { "sample-max", 1, 0, 'M' },
		{ "every-ms", 1, 0, 'E' }, { "track-demoted", 0, 0, 'D' },
		{ "cpu-of", 1, 0, 'O' }, { "watch-pages", 1, 0, 'w' },
		{ "watch-near", 1, 0, 'N' }, { "scatter-unit", 1, 0, 'u' },
		{ 0 }
	};
	double total = 0;
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's': opt.size_mb = strtoul(optarg, NULL, 0); break;
		case 'k': opt.stride = strtoul(optarg, NULL, 0); break;
		case 't': opt.threads = strtoul(optarg, NULL, 0); break;
		case 'd': opt.seconds = strtod(optarg, NULL); break;
		case 'i': opt.interval = strtod(optarg, NULL); break;
		case 'H': opt.thp = true; break;
		case 'c': opt.csv = true; break;
		case 'n': opt.slow_node = strtol(optarg, NULL, 0); break;
		case 'p': opt.hot_pct = strtod(optarg, NULL); opt.region = true; break;
		case 'C': opt.chunks = strtoul(optarg, NULL, 0); break;
		case 'o': opt.hot_offset_pct = strtod(optarg, NULL); break;
		case 'P': opt.phase_at = strtod(optarg, NULL); break;
		case 'x': opt.chase = true; break;
		case 'l': opt.lines = strtoul(optarg, NULL, 0); break;
		case 'f': opt.fast_mb = strtoul(optarg, NULL, 0); break;
		case 'v': opt.vmstat = optarg; break;
		case 'K': opt.kthreads = optarg; break;
		case 'S': opt.seed = strtoul(optarg, NULL, 0); break;
		case 'U': opt.setup = optarg; break;
		case 'W': opt.watch = strtol(optarg, NULL, 0); break;
		case 'w': opt.watch_pages = optarg; break;
		case 'N': opt.watch_near = optarg; break;
		case 'T': opt.teardown = optarg; break;
		case 'a': opt.scatter_pct = strtod(optarg, NULL); opt.scatter = true; break;
		case 'u':
			/* "thp": the huge pages of --thp, sized once page_size is known. */
			opt.unit_thp = !strcmp(optarg, "thp");
			opt.scatter_unit = opt.unit_thp ? 1 : strtoul(optarg, NULL, 0);
			break;
		case 'F': opt.fill_leave_mb = strtol(optarg, NULL, 0); break;
		case 'M': opt.sample_max = strtoul(optarg, NULL, 0); break;
		case 'D': opt.track_demoted = true; break;
		case 'E': {
			char *end;
			double ms = strtod(optarg, &end);
			int x = CL_X1 + nr_custom;

			if (nr_custom == 2 || *end != ':' || ms <= 0)
				usage(argv[0]);
			opt.class_pct[x] = strtod(end + 1, NULL);
			class_period[x] = ms / 1000;
			if (ms >= 1000 && ms == 1000 * (long)(ms / 1000))
				snprintf(custom_name[nr_custom], sizeof(custom_name[0]),
					 "c%lds", (long)(ms / 1000));
			else
				snprintf(custom_name[nr_custom], sizeof(custom_name[0]),
					 "c%.0fms", ms);
			class_name[x] = custom_name[nr_custom++];
			if (nr_custom == 2 && !strcmp(custom_name[0], custom_name[1]))
				usage(argv[0]);
			break;
		}
		case 'O': {
			char *colon = strchr(optarg, ':');

			if (nr_cpu_of == MAX_CPU_OF || !colon || colon == optarg ||
			    colon - optarg >= (long)sizeof(cpu_of[0].name) || !colon[1])
				usage(argv[0]);
			memcpy(cpu_of[nr_cpu_of].name, optarg, colon - optarg);
			cpu_of[nr_cpu_of++].prefixes = colon + 1;
			break;
		}
		default:
			if (c >= 0x100 + CL_100MS && c < 0x100 + NR_CLASSES) {
				opt.class_pct[c - 0x100] = strtod(optarg, NULL);
				break;
			}
			usage(argv[0]);
		}
	}
	for (c = CL_100MS; c < NR_CLASSES; c++) {
		if (opt.class_pct[c] < 0)
			usage(argv[0]);
		total += opt.class_pct[c];
		opt.classes |= opt.class_pct[c] > 0;
	}
	if (opt.scatter)
		total += opt.scatter_pct * (opt.phase_at >= 0 ? 2 : 1);
	if (!opt.chunks)
		opt.chunks = opt.threads;
	if (!opt.size_mb || !opt.stride || !opt.threads || opt.interval <= 0 ||
	    !opt.lines || opt.lines > 32 || opt.fast_mb > opt.size_mb ||
	    (opt.region && (opt.hot_pct <= 0 || opt.hot_pct > 100)) ||
	    (opt.scatter && (opt.region || opt.scatter_pct <= 0)) || total > 100 ||
	    (opt.watch_near && !opt.watch_pages) || !opt.scatter_unit ||
	    ((opt.scatter_unit > 1 || opt.unit_thp) && !opt.scatter && !opt.classes) ||
	    (opt.unit_thp && !opt.thp)) {
		if (total > 100)
			fprintf(stderr, "the hot set(s) and classes add up to %.1f%% of the pages\n",
				total);
		usage(argv[0]);
	}
}

/* Does @name start with one of the comma-separated prefixes of @list? */
static bool match_prefix(const char *list, const char *name)
{
	const char *s = list;

	while (*s) {
		size_t len = strcspn(s, ",");

		if (len && !strncmp(name, s, len))
			return true;
		s += len;
		if (*s == ',')
			s++;
	}
	return false;
}

/* The counters to report: the demonstration's, or those --vmstat selects. */
static void pick_counters(void)
{
	char line[256], name[128];
	FILE *f;

	if (!opt.vmstat) {
		for (size_t c = 0; c < NR_DEMO_COUNTERS; c++)
			counters[nr_counters++] = demo_counters[c];
		return;
	}
	/* pghot's bookkeeping events are in its stats file (see tiering.h). */
	for (int i = 0; i < 2; i++) {
		f = fopen(i ? PGHOT_STATS_FILE : "/proc/vmstat", "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f) && nr_counters < MAX_COUNTERS) {
			if (sscanf(line, "%127s", name) == 1 &&
			    match_prefix(opt.vmstat, name))
				counters[nr_counters++] = strdup(name);
		}
		fclose(f);
	}
}

/* utime and stime (clock ticks) from the text of /proc/PID/stat after "(comm)". */
static bool stat_times(const char *after_comm, unsigned long long *ut,
		       unsigned long long *st)
{
	/* state (3rd field) ... utime (14th), stime (15th) */
	return sscanf(after_comm, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
		      ut, st) == 2;
}

/* User and system CPU seconds of process @pid. */
static void pid_cpu(int pid, double *user, double *sys)
{
	long hz = sysconf(_SC_CLK_TCK);
	unsigned long long ut, st;
	char path[64], line[1024], *close;

	*user = *sys = 0;
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, line, sizeof(line)))
		return;
	close = strrchr(line, ')');
	if (close && stat_times(close + 2, &ut, &st)) {
		*user = (double)ut / (hz > 0 ? hz : 100);
		*sys = (double)st / (hz > 0 ? hz : 100);
	}
}

/* CPU seconds (user + system) of the threads whose name @prefixes selects. */
static double kthread_cpu(const char *prefixes)
{
	long hz = sysconf(_SC_CLK_TCK);
	unsigned long long total = 0;
	struct dirent *de;
	DIR *dir;

	dir = opendir("/proc");
	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		char path[300], line[1024], *open, *close;
		unsigned long long ut, st;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if (read_file(path, line, sizeof(line)))
			continue;
		open = strchr(line, '(');
		close = strrchr(line, ')');
		if (!open || !close)
			continue;
		*close = '\0';
		if (!match_prefix(prefixes, open + 1))
			continue;
		if (stat_times(close + 2, &ut, &st))
			total += ut + st;
	}
	closedir(dir);
	return (double)total / (hz > 0 ? hz : 100);
}

static double tv_s(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

/*
 * Pages of process --watch in the top tier and in all, from numa_maps, and
 * of those in the top tier the ones that map files (its code and
 * libraries).
 */
static void watch_pages(const struct tiering *tier, size_t *top, size_t *all,
			size_t *file_top)
{
	char path[64], line[4096];
	FILE *f;

	*top = *all = *file_top = 0;
	snprintf(path, sizeof(path), "/proc/%d/numa_maps", opt.watch);
	f = fopen(path, "r");
	if (!f) {
		stop = 1;
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t kb = page_size >> 10, n;
		bool file = strstr(line, " file=");
		char *tok, *save;
		int node;

		tok = strstr(line, "kernelpagesize_kB=");
		if (tok)
			kb = strtoul(tok + 18, NULL, 10);
		for (tok = strtok_r(line, " \n", &save); tok;
		     tok = strtok_r(NULL, " \n", &save)) {
			if (sscanf(tok, "N%d=%zu", &node, &n) != 2)
				continue;
			n *= kb / (page_size >> 10);
			*all += n;
			if (node_is_top(tier, node)) {
				*top += n;
				*file_top += file ? n : 0;
			}
		}
	}
	fclose(f);
}

/* Free memory of node @node (MiB), from its meminfo; -1 when unknown. */
static long node_free_mb(int node)
{
	char path[96], text[4096], *p;

	snprintf(path, sizeof(path), NODE_SYSFS "/node%d/meminfo", node);
	if (read_file(path, text, sizeof(text)))
		return -1;
	p = strstr(text, "MemFree:");
	return p ? strtol(p + 8, NULL, 10) / 1024 : -1;
}

/*
 * Choose the pages move_pages() queries: every page of each group (page
 * class and hot bits, and the fill), or with --sample-max N at most about N
 * of each, one in k, weighted by k.
 */
static int build_sample(void)
{
	size_t nr[NR_GROUPS] = { 0 }, step[NR_GROUPS], seen[NR_GROUPS] = { 0 };
	size_t picked[NR_GROUPS] = { 0 }, fill_step;

	for (size_t i = 0; i < nr_pages; i++)
		nr[page_info[i]]++;
	nr[GRP_FILL] = fill_pages;
	for (int g = 0; g < NR_GROUPS; g++)
		step[g] = opt.sample_max && nr[g] > opt.sample_max ?
			(nr[g] + opt.sample_max - 1) / opt.sample_max : 1;
	smp_addr = malloc((nr_pages + fill_pages) * sizeof(*smp_addr));
	smp_grp = malloc(nr_pages + fill_pages);
	smp_status = malloc((nr_pages + fill_pages) * sizeof(*smp_status));
	if (!smp_addr || !smp_grp || !smp_status)
		return -1;
	for (size_t i = 0; i < nr_pages; i++) {
		int g = page_info[i];

		if (seen[g]++ % step[g])
			continue;
		smp_addr[smp_nr] = buf + i * page_size;
		smp_grp[smp_nr++] = g;
		picked[g]++;
	}
	fill_step = step[GRP_FILL];
	for (size_t i = 0; i < fill_pages; i += fill_step) {
		smp_addr[smp_nr] = fill + i * page_size;
		smp_grp[smp_nr++] = GRP_FILL;
		picked[GRP_FILL]++;
	}
	for (int g = 0; g < NR_GROUPS; g++)
		grp_weight[g] = picked[g] ? (double)nr[g] / picked[g] : 0;
	return 0;
}

/* Residency of one sample: weighted page counts and those in the top tier. */
struct residency {
	double hot, hot_fast, cold, cold_fast;
	double cls[NR_CLASSES], cls_fast[NR_CLASSES];
	double old, old_fast, fill, fill_fast;
	double hot_demoted, colder_fast;	/* --track-demoted */
};

static void residency(const struct tiering *tier, int ph, struct residency *r)
{
	memset(r, 0, sizeof(*r));
	if (sys_move_pages(smp_nr, smp_addr, NULL, smp_status, 0)) {
		perror("move_pages");
		exit(1);
	}
	for (size_t k = 0; k < smp_nr; k++) {
		int g = smp_grp[k];
		double w = grp_weight[g];
		bool fast = node_is_top(tier, smp_status[k]);

		if (smp_prev) {
			bool hot = g != GRP_FILL && PI_HOT(g, ph);

			if (hot && smp_prev[k] == 1 && !fast && PI_HOT(g, prev_phase))
				r->hot_demoted += w;
			if (!hot && fast)
				r->colder_fast += w;
			smp_prev[k] = fast;
		}
		if (g == GRP_FILL) {
			r->fill += w;
			r->fill_fast += fast * w;
		} else if (PI_HOT(g, ph)) {
			r->hot += w;
			r->hot_fast += fast * w;
		} else {
			r->cold += w;
			r->cold_fast += fast * w;
			if (PI_CLASS(g) != CL_NEVER) {
				r->cls[PI_CLASS(g)] += w;
				r->cls_fast[PI_CLASS(g)] += fast * w;
			} else if (PI_HOT(g, 0)) {
				/* hot before the phase change */
				r->old += w;
				r->old_fast += fast * w;
			} else {
				r->cls[CL_NEVER] += w;
				r->cls_fast[CL_NEVER] += fast * w;
			}
		}
	}
	if (smp_prev) {
		hot_demoted += r->hot_demoted;
		hot_demoted_colder += r->hot_demoted < r->colder_fast ?
				      r->hot_demoted : r->colder_fast;
		prev_phase = ph;
	}
}

static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0.0;
}

/* CPU times of the task without the sampler (this thread), and the sampler's. */
static void task_cpu(double *user, double *sys, double *sampler)
{
	struct rusage self, me;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_THREAD, &me);
	*user = tv_s(self.ru_utime) - tv_s(me.ru_utime);
	*sys = tv_s(self.ru_stime) - tv_s(me.ru_stime);
	if (*user < 0)
		*user = 0;
	if (*sys < 0)
		*sys = 0;
	*sampler = tv_s(me.ru_utime) + tv_s(me.ru_stime);
}

/*
 * --watch-pages, --watch-near: listed pages of process --watch, and whether
 * each was in the top tier at the last sample.
 */
struct page_list {
	void **addr;
	int *status;
	int8_t *prev;		/* 1: in the top tier at the last sample */
	size_t nr;
};

static struct page_list wp, near;
static double wp_demoted, wp_demoted_colder;

static int load_page_list(const char *path, struct page_list *l)
{
	char line[64];
	size_t max = 0;
	bool tail = false;
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		bool rest = tail;
		char *end;
		unsigned long long a = strtoull(line, &end, 16);

		/* The rest of a line longer than @line (a comment) is not an address. */
		tail = !strchr(line, '\n');
		if (rest || line[0] == '#' || end == line)
			continue;
		if (l->nr == max) {
			void **p;

			max = max ? 2 * max : 65536;
			p = realloc(l->addr, max * sizeof(*p));
			if (!p) {
				fclose(f);
				return -1;
			}
			l->addr = p;
		}
		l->addr[l->nr++] = (void *)(uintptr_t)a;
	}
	fclose(f);
	l->status = calloc(l->nr ? l->nr : 1, sizeof(*l->status));
	l->prev = calloc(l->nr ? l->nr : 1, sizeof(*l->prev));
	if (!l->nr || !l->status || !l->prev) {
		fprintf(stderr, "%s: no page listed\n", path);
		return -1;
	}
	return 0;
}

/*
 * Where the pages of @l are: how many in the top tier, and, unless
 * @demoted is NULL, how many were there at the last sample and are on
 * another node now.  @first: no last sample.
 */
static void watch_listed(const struct tiering *tier, struct page_list *l,
			 bool first, size_t *top, size_t *demoted)
{
	enum { WP_BATCH = 16384 };

	*top = 0;
	if (demoted)
		*demoted = 0;
	for (size_t i = 0; i < l->nr; i += WP_BATCH) {
		size_t n = l->nr - i < WP_BATCH ? l->nr - i : WP_BATCH;

		if (syscall(SYS_move_pages, opt.watch, n, l->addr + i, NULL,
			    l->status + i, 0)) {
			stop = 1;
			return;
		}
	}
	for (size_t i = 0; i < l->nr; i++) {
		bool fast = node_is_top(tier, l->status[i]);

		*top += fast;
		if (demoted && !first && l->prev[i] == 1 && !fast && l->status[i] >= 0)
			(*demoted)++;
		l->prev[i] = fast;
	}
}

static void report(double t, long *base, const struct tiering *tier,
		   uint64_t *last_acc, double *last_t)
{
	struct residency r;
	long vals[MAX_COUNTERS];
	size_t top = 0, all = 0, keyhot_top = 0, near_top = 0, file_top = 0;
	uint64_t acc = 0;
	double lat = 0, hot_pct, cold_pct;
	int ph = phase;

	if (opt.watch) {
		watch_pages(tier, &top, &all, &file_top);
		memset(&r, 0, sizeof(r));
		r.hot = all;
		r.hot_fast = top;
		if (wp.nr) {
			size_t demoted, colder;

			watch_listed(tier, &wp, t == 0, &keyhot_top, &demoted);
			/* numa_maps counts the listed pages too. */
			colder = top > keyhot_top ? top - keyhot_top : 0;
			wp_demoted += demoted;
			wp_demoted_colder += demoted < colder ? demoted : colder;
		}
		if (near.nr)
			watch_listed(tier, &near, t == 0, &near_top, NULL);
	} else {
		residency(tier, ph, &r);
	}
	hot_pct = pct(r.hot_fast, r.hot);
	cold_pct = pct(r.cold_fast, r.cold);
	for (size_t w = 0; w < opt.threads && !opt.watch; w++)
		acc += workers[w].accesses;
	if (acc > *last_acc && t > *last_t)
		lat = (t - *last_t) * 1e9 * opt.threads / (acc - *last_acc);
	*last_acc = acc;
	*last_t = t;

	if (opt.csv) {
		printf("%.2f,%d,%.2f,%.2f,%.1f,%.1f", t, ph, hot_pct, cold_pct,
		       (r.hot_fast + r.cold_fast) * page_size / (1 << 20), lat);
		if (!opt.watch)
			printf(",%.2f", pct(r.cold_fast, r.hot));
		if (wp.nr)
			printf(",%.2f,%.0f,%.0f", pct(keyhot_top, wp.nr), wp_demoted,
			       wp_demoted_colder);
		if (near.nr)
			printf(",%.2f,%zu", pct(near_top, near.nr), file_top);
		if (opt.scatter || opt.classes) {
			double colder = r.cls_fast[CL_5S] + r.cls_fast[CL_30S] +
					r.cls_fast[CL_ONCE] + r.cls_fast[CL_NEVER];

			for (int c = CL_100MS; c < NR_CLASSES; c++)
				if (class_shown(c))
					printf(",%.2f", pct(r.cls_fast[c], r.cls[c]));
			printf(",%.1f,%.2f,%.2f", pct(once_done, class_nr[CL_ONCE]),
			       pct(r.cls_fast[CL_NEVER], r.cls[CL_NEVER]),
			       pct(r.old_fast, r.old));
			/*
			 * Over-promotion proper: pages that are not hot by
			 * mainline's own threshold (touched every 5 s, 30 s,
			 * once or never, or in an --every-ms class of a
			 * period above 1 s), in the top tier, as % of the hot
			 * set.
			 */
			for (int c = CL_X1; c < NR_CLASSES; c++)
				if (class_shown(c) && class_period[c] > 1)
					colder += r.cls_fast[c];
			printf(",%.2f", pct(colder, r.hot));
		}
		if (fill_pages)
			printf(",%.2f", pct(r.fill_fast, r.fill));
		if (smp_prev)
			printf(",%.0f,%.0f", hot_demoted, hot_demoted_colder);
	} else {
		printf("%6.1f %8.2f %8.2f", t, hot_pct, cold_pct);
	}
	vmstat_refresh();
	vmstat_read_many(counters, vals, nr_counters);
	for (size_t c = 0; c < nr_counters; c++) {
		if (base[c] < 0)
			continue;
		if (opt.csv)
			printf(",%ld", vals[c] - base[c]);
		else
			printf(" %*ld", (int)strlen(counters[c]), vals[c] - base[c]);
	}
	if (opt.csv) {
		double user, sys, sampler;

		task_cpu(&user, &sys, &sampler);
		if (opt.watch)
			pid_cpu(opt.watch, &user, &sys);
		if (opt.kthreads)
			printf(",%.2f", kthread_cpu(opt.kthreads));
		for (int i = 0; i < nr_cpu_of; i++)
			printf(",%.2f", kthread_cpu(cpu_of[i].prefixes));
		printf(",%.2f,%.2f,%.2f", user, sys, sampler);
	}
	printf("\n");
	fflush(stdout);
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void print_header(const long *base)
{
	if (!opt.csv) {
		printf("%6s %8s %8s", "t(s)", "hot%top", "cold%top");
		for (size_t c = 0; c < nr_counters; c++)
			if (base[c] >= 0)
				printf(" %s", counters[c]);
		printf("\n");
		return;
	}
	printf("t_s,phase,hot_top_pct,cold_top_pct,top_mb,lat_ns");
	if (!opt.watch)
		printf(",over_pct");
	if (wp.nr)
		printf(",keyhot_top_pct,hot_demoted,hot_demoted_colder");
	if (near.nr)
		printf(",nearhot_top_pct,file_top_pages");
	if (opt.scatter || opt.classes) {
		for (int c = CL_100MS; c < NR_CLASSES; c++)
			if (class_shown(c))
				printf(",%s_top_pct", class_name[c]);
		printf(",once_done_pct,never_top_pct,oldhot_top_pct,coldover_pct");
	}
	if (fill_pages)
		printf(",fill_top_pct");
	if (smp_prev)
		printf(",hot_demoted,hot_demoted_colder");
	for (size_t c = 0; c < nr_counters; c++)
		if (base[c] >= 0)
			printf(",%s", counters[c]);
	printf("%s", opt.kthreads ? ",kthread_cpu_s" : "");
	for (int i = 0; i < nr_cpu_of; i++)
		printf(",%s_cpu_s", cpu_of[i].name);
	printf(",task_user_s,task_sys_s,sampler_s\n");
}

/* --watch: sample process opt.watch until it exits or SIGTERM arrives. */
static int watch_main(const struct tiering *tier)
{
	long base[MAX_COUNTERS];
	uint64_t last_acc = 0;
	double start, next, last_t = 0;

	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	opt.csv = true;
	pick_counters();
	vmstat_refresh();
	vmstat_read_many(counters, base, nr_counters);
	if (opt.watch_pages && load_page_list(opt.watch_pages, &wp))
		return 1;
	if (opt.watch_near && load_page_list(opt.watch_near, &near))
		return 1;
	printf("# hotset: watch=%d page_size=%zu slow_node=%d fast_node=%d hot_pages=%zu",
	       opt.watch, page_size, tier->slow_node, tier->fast_node, wp.nr);
	if (near.nr)
		printf(" near_pages=%zu", near.nr);
	printf("\n");
	print_header(base);
	start = now_s();
	report(0, base, tier, &last_acc, &last_t);
	for (next = start + opt.interval; next <= start + opt.seconds + 1e-9;
	     next += opt.interval) {
		while (!stop && now_s() < next)
			usleep(20000);
		if (kill(opt.watch, 0))
			break;
		report(now_s() - start, base, tier, &last_acc, &last_t);
		if (stop)
			break;
	}
	return 0;
}

/* Is every page of the @unit-th --scatter-unit run free of any set? */
static bool unit_unassigned(size_t unit)
{
	for (size_t i = 0; i < opt.scatter_unit; i++)
		if (page_info[unit * opt.scatter_unit + i])
			return false;
	return true;
}

/* Put every page of the @unit-th run in the set @info. */
static void unit_assign(size_t unit, unsigned char info)
{
	memset(page_info + unit * opt.scatter_unit, info, opt.scatter_unit);
}

/*
 * Assign the hot bits and frequency classes of every page: the layout's hot
 * pages, then disjoint random sets among the other pages: the scattered hot
 * set of phase 0, each class, the scattered hot set of phase 1.  The random
 * sets are drawn in runs of --scatter-unit pages (1: single pages), each a
 * percentage of the whole runs of the buffer.
 */
static int assign_pages(void)
{
	size_t nr_cand = 0, need = 0, pos = 0, nr_hot, want[NR_CLASSES] = { 0 };
	size_t unit = opt.scatter_unit, nr_units = nr_pages / unit;
	size_t *cand;

	page_info = calloc(nr_pages, 1);
	if (!page_info)
		return -1;
	if (!opt.scatter) {
		for (size_t i = 0; i < nr_pages; i++)
			page_info[i] = is_hot_layout(i, 0) << HOT_SHIFT |
				       is_hot_layout(i, 1) << (HOT_SHIFT + 1);
		if (!opt.classes)
			return 0;
	}
	nr_hot = opt.scatter ? (size_t)(opt.scatter_pct / 100.0 * nr_units + 0.5) : 0;
	if (opt.scatter && !nr_hot) {
		fprintf(stderr, "hot set too small: %zu runs of %zu pages\n", nr_units, unit);
		return -1;
	}
	for (int c = CL_100MS; c < NR_CLASSES; c++) {
		want[c] = (size_t)(opt.class_pct[c] / 100.0 * nr_units + 0.5);
		need += want[c];
	}
	need += nr_hot * (opt.phase_at >= 0 ? 2 : 1);
	cand = malloc((nr_units + 1) * sizeof(*cand));
	if (!cand)
		return -1;
	for (size_t u = 0; u < nr_units; u++)
		if (unit_unassigned(u))
			cand[nr_cand++] = u;
	if (need > nr_cand) {
		fprintf(stderr, "%zu runs of %zu pages wanted for the hot set(s) and classes, %zu available\n",
			need, unit, nr_cand);
		return -1;
	}
	/* A partial Fisher-Yates shuffle: the first @need candidates. */
	for (size_t k = 0; k < need; k++) {
		size_t j = k + rng() % (nr_cand - k), t = cand[k];

		cand[k] = cand[j];
		cand[j] = t;
	}
	for (size_t k = 0; k < nr_hot; k++)
		unit_assign(cand[pos++], 1 << HOT_SHIFT);
	for (int c = CL_100MS; c < NR_CLASSES; c++) {
		class_pages[c] = malloc((want[c] * unit + 1) * sizeof(size_t));
		if (!class_pages[c])
			return -1;
		class_nr[c] = 0;
		for (size_t k = 0; k < want[c]; k++, pos++) {
			for (size_t i = 0; i < unit; i++)
				class_pages[c][class_nr[c]++] = cand[pos] * unit + i;
			unit_assign(cand[pos], c);
		}
	}
	for (size_t k = 0; k < nr_hot && opt.phase_at >= 0; k++)
		unit_assign(cand[pos++], 2 << HOT_SHIFT);
	free(cand);
	return 0;
}

/*
 * MiB of the buffer in huge pages, from the mapping that starts at it
 * (tiering.h), -1 if unknown.  With --thp it is one mapping unless
 * --fast-mb put its head on another node.
 */
static long thp_mb(void)
{
	long kb = anon_huge_kb(buf);

	return kb < 0 ? -1 : kb >> 10;
}

/* --fill-fast-leave-mb: fill the fast node until N MiB remain free. */
static int fill_fast_node(const struct tiering *tier)
{
	long free_mb = node_free_mb(tier->fast_node);
	size_t len;

	if (free_mb < 0) {
		fprintf(stderr, "cannot read the free memory of node %d\n", tier->fast_node);
		return -1;
	}
	if (free_mb <= opt.fill_leave_mb)
		return 0;
	len = (size_t)(free_mb - opt.fill_leave_mb) << 20;
	fill = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (fill == MAP_FAILED) {
		perror("mmap (fill)");
		return -1;
	}
	madvise(fill, len, MADV_NOHUGEPAGE);
	if (place_on_node(fill, len, tier->fast_node)) {
		perror("mbind (fill)");
		return -1;
	}
	fill_pages = len / page_size;
	return 0;
}

int main(int argc, char **argv)
{
	struct tiering tier;
	long base[MAX_COUNTERS];
	double start, next, last_t = 0;
	uint64_t last_acc = 0;
	size_t hot_pages = 0, fast_bytes;
	pthread_t toucher;
	bool have_toucher = false;

	parse(argc, argv);
	if (!tiering_discover(&tier)) {
		fprintf(stderr, "no lower memory tier\n");
		return 4;
	}
	if (opt.slow_node >= 0)
		tier.slow_node = opt.slow_node;
	page_size = getpagesize();
	if (opt.watch)
		return watch_main(&tier);
	if (opt.unit_thp)
		opt.scatter_unit = THP_BYTES / page_size;
	nr_pages = (opt.size_mb << 20) / page_size;
	chunk_pages = nr_pages / opt.chunks;
	hot_len = (size_t)(opt.hot_pct / 100.0 * chunk_pages);
	if (opt.region && (!chunk_pages || !hot_len)) {
		fprintf(stderr, "hot set too small: %zu pages per chunk\n", chunk_pages);
		return 2;
	}
	rng_state = opt.seed * 0x9e3779b97f4a7c15ULL | 1;
	workers = calloc(opt.threads, sizeof(*workers));
	/*
	 * With --thp the buffer starts on a huge page boundary, so that the
	 * runs of --scatter-unit pages are the huge pages themselves.
	 */
	buf = mmap(NULL, (opt.size_mb << 20) + (opt.thp ? THP_BYTES : 0),
		   PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!workers || buf == MAP_FAILED || assign_pages()) {
		perror("allocation");
		return 1;
	}
	if (opt.thp)
		buf = (char *)(((uintptr_t)buf + THP_BYTES - 1) & ~(uintptr_t)(THP_BYTES - 1));
	madvise(buf, opt.size_mb << 20, opt.thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	start = now_s();
	fast_bytes = opt.fast_mb << 20;
	if ((fast_bytes && place_on_node(buf, fast_bytes, tier.fast_node)) ||
	    (fast_bytes < (opt.size_mb << 20) &&
	     place_on_node(buf + fast_bytes, (opt.size_mb << 20) - fast_bytes,
			   tier.slow_node))) {
		perror("mbind");
		return 1;
	}

	/* Each worker's hot pages, per phase, then the chase chains. */
	for (int ph = 0; ph < 2; ph++) {
		size_t k = 0;

		for (size_t i = 0; i < nr_pages; i++)
			if (PI_HOT(page_info[i], ph))
				workers[owner(i, k++)].nr[ph]++;
		for (size_t w = 0; w < opt.threads; w++) {
			workers[w].pages[ph] = calloc(workers[w].nr[ph] + 1, sizeof(size_t));
			if (!workers[w].pages[ph]) {
				perror("allocation");
				return 1;
			}
			workers[w].nr[ph] = 0;
		}
		k = 0;
		for (size_t i = 0; i < nr_pages; i++) {
			struct worker *w;

			if (!PI_HOT(page_info[i], ph))
				continue;
			w = &workers[owner(i, k++)];
			w->pages[ph][w->nr[ph]++] = i;
			hot_pages += !ph;
		}
		/* The second chain only when the hot set moves. */
		for (size_t w = 0; w < opt.threads && opt.chase && (!ph || opt.phase_at >= 0); w++)
			if (build_chain(&workers[w], ph)) {
				perror("allocation");
				return 1;
			}
	}

	/* Other data on the fast node, then the pages the sampler queries. */
	if (opt.fill_leave_mb >= 0 && fill_fast_node(&tier))
		return 1;
	if (build_sample()) {
		perror("allocation");
		return 1;
	}
	if (opt.track_demoted) {
		smp_prev = malloc(smp_nr ? smp_nr : 1);
		if (!smp_prev) {
			perror("allocation");
			return 1;
		}
		memset(smp_prev, -1, smp_nr);
	}

	/* Turn the promotion mechanism on now that the buffer is in place. */
	if (opt.setup) {
		int rc;

		fflush(stdout);
		rc = system(opt.setup);
		if (rc) {
			fprintf(stderr, "setup command failed (status %d): %s\n", rc, opt.setup);
			return 1;
		}
	}

	pick_counters();
	vmstat_refresh();
	vmstat_read_many(counters, base, nr_counters);
	if (opt.csv) {
		printf("# hotset: size_mb=%zu page_size=%zu pages=%zu hot_pages=%zu "
		       "threads=%zu chunks=%zu chase=%d fast_mb=%zu phase_at=%.1f "
		       "slow_node=%d fast_node=%d setup_s=%.1f layout=%s seed=%lu "
		       "fill_mb=%zu sampled_pages=%zu scatter_unit=%zu thp_mb=%ld",
		       opt.size_mb, page_size, nr_pages, hot_pages, opt.threads,
		       opt.region ? opt.chunks : 0, opt.chase, opt.fast_mb,
		       opt.phase_at, tier.slow_node, tier.fast_node, now_s() - start,
		       opt.scatter ? "scatter" : opt.region ? "region" : "stride",
		       opt.seed, fill_pages * page_size >> 20, smp_nr,
		       opt.scatter_unit, thp_mb());
		for (int c = CL_100MS; c < NR_CLASSES; c++)
			if (class_shown(c))
				printf(" %s_pages=%zu", class_name[c], class_nr[c]);
		for (int c = CL_X1; c < NR_CLASSES; c++)
			if (class_shown(c))
				printf(" %s_period_ms=%.0f", class_name[c],
				       class_period[c] * 1000);
		printf("\n");
	}
	print_header(base);
	if (!opt.csv && opt.scatter)
		printf("# %zu MiB on node %d, hot set: %zu MiB scattered, %zu thread(s)\n",
		       opt.size_mb, tier.slow_node, hot_pages * page_size >> 20, opt.threads);
	else if (!opt.csv && !opt.region)
		printf("# %zu MiB on node %d, hot set: 1 page in %zu (%zu MiB), %zu thread(s)\n",
		       opt.size_mb, tier.slow_node, opt.stride,
		       opt.size_mb / opt.stride, opt.threads);
	else if (!opt.csv)
		printf("# %zu MiB on node %d, hot set: %zu MiB in %zu chunk(s), %zu thread(s)\n",
		       opt.size_mb, tier.slow_node, hot_pages * page_size >> 20,
		       opt.chunks, opt.threads);

	/* The first sample shows the placement before any access. */
	report(0, base, &tier, &last_acc, &last_t);
	start = run_start = now_s();
	for (size_t i = 0; i < opt.threads; i++)
		pthread_create(&workers[i].tid, NULL, worker_fn, &workers[i]);
	if (opt.classes)
		have_toucher = !pthread_create(&toucher, NULL, toucher_fn, NULL);
	/*
	 * Sample every --interval until --seconds have passed; a sample that
	 * took longer than the interval (a busy guest) skips the ticks it
	 * overran, so that every run lasts the same time.
	 */
	for (next = start + opt.interval; next <= start + opt.seconds + 1e-9;
	     next += opt.interval) {
		double t = next - now_s();

		if (t > 0)
			usleep(t * 1e6);
		if (opt.phase_at >= 0 && now_s() - start >= opt.phase_at)
			phase = 1;
		report(now_s() - start, base, &tier, &last_acc, &last_t);
		while (next + opt.interval < now_s() - 1e-3 &&
		       next + opt.interval <= start + opt.seconds + 1e-9)
			next += opt.interval;
	}
	if (opt.teardown) {
		fflush(stdout);
		if (system(opt.teardown))
			fprintf(stderr, "teardown command failed: %s\n", opt.teardown);
	}
	stop = 1;
	for (size_t i = 0; i < opt.threads; i++)
		pthread_join(workers[i].tid, NULL);
	if (have_toucher)
		pthread_join(toucher, NULL);
	return 0;
}
