// SPDX-License-Identifier: GPL-2.0
/*
 * hotset: a buffer faulted in on a lower-tier node, a hot set of its pages
 * touched over and over, the rest (the cold set) left alone.  Prints, every
 * --interval seconds, how much of each set sits in the top tier and how the
 * counters of /proc/vmstat moved.
 *
 * The hot set is either one page in --stride (the default, used by the
 * demonstration) or, with --hot-pct, a contiguous region of each of --chunks
 * equal chunks of the buffer.  --phase-at moves the hot regions by half a
 * chunk midway.  --chase replaces the stores with a pointer chase (dependent
 * loads in a random order) and --fast-mb puts the head of the buffer on the
 * top tier (to overcommit it).  --setup runs a command once the buffer is in
 * place, before the first sample (the harness turns the mechanism on there),
 * --teardown one right after the last sample (the harness reads the
 * mechanism's own statistics there).
 *
 * --watch PID samples another process instead (the redis scenario): the share
 * of its memory in the top tier, from /proc/PID/numa_maps, reported as the
 * hot set, until it exits, SIGTERM arrives or --seconds pass.
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
	"pghot_recorded_accesses", "pghot_recorded_hintfaults",
	"pghot_recorded_hwhints",
};
#define NR_DEMO_COUNTERS (sizeof(demo_counters) / sizeof(demo_counters[0]))
#define MAX_COUNTERS 64

static struct {
	size_t size_mb, stride, threads, chunks, lines, fast_mb;
	double seconds, interval, phase_at, hot_pct, hot_offset_pct;
	bool thp, csv, chase, region;
	int slow_node, watch;
	const char *vmstat, *kthreads, *setup, *teardown;
	unsigned long seed;
} opt = { .size_mb = 256, .stride = 4, .threads = 1, .seconds = 30,
	  .interval = 2, .slow_node = -1, .lines = 1, .phase_at = -1,
	  .seed = 1 };

static char *buf;
static size_t page_size, nr_pages, chunk_pages, hot_len;
static volatile int stop, phase;

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

/* Is page @i hot in phase @ph? */
static bool is_hot(size_t i, int ph)
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

/* Which worker touches hot page @i. */
static size_t owner(size_t i)
{
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

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--size-mb N] [--stride N | --hot-pct P [--chunks N]\n"
		"          [--hot-offset-pct P] [--phase-at S]] [--threads N]\n"
		"          [--chase [--lines N]] [--fast-mb N] [--seconds S]\n"
		"          [--interval S] [--thp] [--csv] [--node N]\n"
		"          [--vmstat PREFIX,...] [--kthreads PREFIX,...] [--seed N]\n"
		"          [--setup COMMAND] [--teardown COMMAND]\n"
		"       %s --watch PID [--seconds S] [--interval S] [--csv] ...\n",
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
		{ "teardown", 1, 0, 'T' }, { 0 }
	};
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
		case 'T': opt.teardown = optarg; break;
		default: usage(argv[0]);
		}
	}
	if (!opt.chunks)
		opt.chunks = opt.threads;
	if (!opt.size_mb || !opt.stride || !opt.threads || opt.interval <= 0 ||
	    !opt.lines || opt.lines > 32 || opt.fast_mb > opt.size_mb ||
	    (opt.region && (opt.hot_pct <= 0 || opt.hot_pct > 100)))
		usage(argv[0]);
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
	f = fopen("/proc/vmstat", "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && nr_counters < MAX_COUNTERS) {
		if (sscanf(line, "%127s", name) == 1 && match_prefix(opt.vmstat, name))
			counters[nr_counters++] = strdup(name);
	}
	fclose(f);
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

/* CPU seconds (user + system) of the threads whose name --kthreads selects. */
static double kthread_cpu(void)
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
		if (!match_prefix(opt.kthreads, open + 1))
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

/* Pages of process --watch in the top tier and in all, from numa_maps. */
static void watch_pages(const struct tiering *tier, size_t *top, size_t *all)
{
	char path[64], line[4096];
	FILE *f;

	*top = *all = 0;
	snprintf(path, sizeof(path), "/proc/%d/numa_maps", opt.watch);
	f = fopen(path, "r");
	if (!f) {
		stop = 1;
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t kb = page_size >> 10, n;
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
			if (node_is_top(tier, node))
				*top += n;
		}
	}
	fclose(f);
}

static void report(double t, long *base, int *status, void **pages,
		   const struct tiering *tier, uint64_t *last_acc, double *last_t)
{
	size_t hot = 0, hot_fast = 0, cold = 0, cold_fast = 0;
	uint64_t acc = 0;
	double lat = 0;
	int ph = phase;

	if (opt.watch)
		watch_pages(tier, &hot_fast, &hot);
	else if (query_nodes(buf, nr_pages, page_size, status, pages)) {
		perror("move_pages");
		exit(1);
	}
	for (size_t i = 0; i < nr_pages && !opt.watch; i++) {
		bool fast = node_is_top(tier, status[i]);

		if (is_hot(i, ph)) {
			hot++;
			hot_fast += fast;
		} else {
			cold++;
			cold_fast += fast;
		}
	}
	for (size_t w = 0; w < opt.threads && !opt.watch; w++)
		acc += workers[w].accesses;
	if (acc > *last_acc && t > *last_t)
		lat = (t - *last_t) * 1e9 * opt.threads / (acc - *last_acc);
	*last_acc = acc;
	*last_t = t;

	if (opt.csv)
		printf("%.2f,%d,%.2f,%.2f,%.1f,%.1f", t, ph,
		       hot ? 100.0 * hot_fast / hot : 0.0,
		       cold ? 100.0 * cold_fast / cold : 0.0,
		       (double)(hot_fast + cold_fast) * page_size / (1 << 20), lat);
	else
		printf("%6.1f %8.2f %8.2f", t, hot ? 100.0 * hot_fast / hot : 0.0,
		       cold ? 100.0 * cold_fast / cold : 0.0);
	for (size_t c = 0; c < nr_counters; c++) {
		long v = vmstat_read(counters[c]);

		if (base[c] < 0)
			continue;
		if (opt.csv)
			printf(",%ld", v - base[c]);
		else
			printf(" %*ld", (int)strlen(counters[c]), v - base[c]);
	}
	if (opt.csv) {
		struct rusage ru;
		double user, sys;

		getrusage(RUSAGE_SELF, &ru);
		user = tv_s(ru.ru_utime);
		sys = tv_s(ru.ru_stime);
		if (opt.watch)
			pid_cpu(opt.watch, &user, &sys);
		if (opt.kthreads)
			printf(",%.2f", kthread_cpu());
		printf(",%.2f,%.2f", user, sys);
	}
	printf("\n");
	fflush(stdout);
}

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static void print_header(void)
{
	printf("t_s,phase,hot_top_pct,cold_top_pct,top_mb,lat_ns");
	for (size_t c = 0; c < nr_counters; c++)
		if (vmstat_read(counters[c]) >= 0)
			printf(",%s", counters[c]);
	printf("%s,task_user_s,task_sys_s\n", opt.kthreads ? ",kthread_cpu_s" : "");
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
	for (size_t c = 0; c < nr_counters; c++)
		base[c] = vmstat_read(counters[c]);
	printf("# hotset: watch=%d page_size=%zu slow_node=%d fast_node=%d\n",
	       opt.watch, page_size, tier->slow_node, tier->fast_node);
	print_header();
	start = now_s();
	report(0, base, NULL, NULL, tier, &last_acc, &last_t);
	for (next = start + opt.interval; next <= start + opt.seconds + 1e-9;
	     next += opt.interval) {
		while (!stop && now_s() < next)
			usleep(20000);
		if (kill(opt.watch, 0))
			break;
		report(now_s() - start, base, NULL, NULL, tier, &last_acc, &last_t);
		if (stop)
			break;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct tiering tier;
	long base[MAX_COUNTERS];
	double start, next, last_t = 0;
	uint64_t last_acc = 0;
	size_t hot_pages = 0, fast_bytes;
	int *status;
	void **pages;

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
	nr_pages = (opt.size_mb << 20) / page_size;
	chunk_pages = nr_pages / opt.chunks;
	hot_len = (size_t)(opt.hot_pct / 100.0 * chunk_pages);
	if (opt.region && (!chunk_pages || !hot_len)) {
		fprintf(stderr, "hot set too small: %zu pages per chunk\n", chunk_pages);
		return 2;
	}
	rng_state = opt.seed * 0x9e3779b97f4a7c15ULL | 1;
	status = calloc(nr_pages, sizeof(*status));
	pages = calloc(nr_pages, sizeof(*pages));
	workers = calloc(opt.threads, sizeof(*workers));
	buf = mmap(NULL, opt.size_mb << 20, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!status || !pages || !workers || buf == MAP_FAILED) {
		perror("allocation");
		return 1;
	}
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
		for (size_t i = 0; i < nr_pages; i++)
			if (is_hot(i, ph))
				workers[owner(i)].nr[ph]++;
		for (size_t w = 0; w < opt.threads; w++) {
			workers[w].pages[ph] = calloc(workers[w].nr[ph] + 1, sizeof(size_t));
			if (!workers[w].pages[ph]) {
				perror("allocation");
				return 1;
			}
			workers[w].nr[ph] = 0;
		}
		for (size_t i = 0; i < nr_pages; i++) {
			struct worker *w = &workers[owner(i)];

			if (!is_hot(i, ph))
				continue;
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
	for (size_t c = 0; c < nr_counters; c++)
		base[c] = vmstat_read(counters[c]);
	if (opt.csv) {
		printf("# hotset: size_mb=%zu page_size=%zu pages=%zu hot_pages=%zu "
		       "threads=%zu chunks=%zu chase=%d fast_mb=%zu phase_at=%.1f "
		       "slow_node=%d fast_node=%d setup_s=%.1f\n",
		       opt.size_mb, page_size, nr_pages, hot_pages, opt.threads,
		       opt.region ? opt.chunks : 0, opt.chase, opt.fast_mb,
		       opt.phase_at, tier.slow_node, tier.fast_node, now_s() - start);
		printf("t_s,phase,hot_top_pct,cold_top_pct,top_mb,lat_ns");
	} else {
		printf("%6s %8s %8s", "t(s)", "hot%top", "cold%top");
	}
	for (size_t c = 0; c < nr_counters; c++)
		if (base[c] >= 0)
			printf(opt.csv ? ",%s" : " %s", counters[c]);
	if (opt.csv)
		printf("%s,task_user_s,task_sys_s", opt.kthreads ? ",kthread_cpu_s" : "");
	printf("\n");
	if (!opt.csv && !opt.region)
		printf("# %zu MiB on node %d, hot set: 1 page in %zu (%zu MiB), %zu thread(s)\n",
		       opt.size_mb, tier.slow_node, opt.stride,
		       opt.size_mb / opt.stride, opt.threads);
	else if (!opt.csv)
		printf("# %zu MiB on node %d, hot set: %zu MiB in %zu chunk(s), %zu thread(s)\n",
		       opt.size_mb, tier.slow_node, hot_pages * page_size >> 20,
		       opt.chunks, opt.threads);

	/* The first sample shows the placement before any access. */
	report(0, base, status, pages, &tier, &last_acc, &last_t);
	start = now_s();
	for (size_t i = 0; i < opt.threads; i++)
		pthread_create(&workers[i].tid, NULL, worker_fn, &workers[i]);
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
		report(now_s() - start, base, status, pages, &tier, &last_acc, &last_t);
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
	return 0;
}
