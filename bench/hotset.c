// SPDX-License-Identifier: GPL-2.0
/*
 * hotset: a buffer faulted in on a lower-tier node, one page in --stride
 * touched over and over (the hot set), the rest left alone (the cold set).
 * Prints, every --interval seconds, how much of each set sits in the top
 * tier and how the promotion counters of /proc/vmstat moved.
 *
 * Used by `make run` (the demonstration) and the benchmark harness.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>

#include "tiering.h"

static const char *counters[] = {
	"pgpromote_success", "pgpromote_candidate", "pgpromote_candidate_nrl",
	"numa_hint_faults", "pgdemote_kswapd", "pgdemote_direct",
	"pghot_recorded_accesses", "pghot_recorded_hintfaults",
	"pghot_recorded_hwhints",
};
#define NR_COUNTERS (sizeof(counters) / sizeof(counters[0]))

static struct {
	size_t size_mb, stride, threads;
	double seconds, interval;
	bool thp, csv, chase;
	int slow_node;
} opt = { .size_mb = 256, .stride = 4, .threads = 1, .seconds = 30,
	  .interval = 2, .slow_node = -1 };

static char *buf;
static size_t page_size, nr_pages;
static volatile int stop;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Worker @id touches the hot pages i with (i / stride) % threads == id, so
 * that several threads share the hot set without sharing pages.
 */
static void *worker(void *arg)
{
	size_t id = (size_t)arg;
	uint64_t round = 0;

	while (!stop) {
		round++;
		for (size_t i = id * opt.stride; i < nr_pages;
		     i += opt.stride * opt.threads)
			((volatile uint64_t *)(buf + i * page_size))[0] = round;
	}
	return NULL;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--size-mb N] [--stride N] [--threads N] [--seconds S]\n"
		"          [--interval S] [--thp] [--csv] [--node N]\n", prog);
	exit(2);
}

static void parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "size-mb", 1, 0, 's' }, { "stride", 1, 0, 'k' },
		{ "threads", 1, 0, 't' }, { "seconds", 1, 0, 'd' },
		{ "interval", 1, 0, 'i' }, { "thp", 0, 0, 'H' },
		{ "csv", 0, 0, 'c' }, { "node", 1, 0, 'n' }, { 0 }
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
		default: usage(argv[0]);
		}
	}
	if (!opt.size_mb || !opt.stride || !opt.threads || opt.interval <= 0)
		usage(argv[0]);
}

static void report(double t, long *base, int *status, void **pages,
		   const struct tiering *tier)
{
	size_t hot = 0, hot_fast = 0, cold = 0, cold_fast = 0;

	if (query_nodes(buf, nr_pages, page_size, status, pages)) {
		perror("move_pages");
		exit(1);
	}
	for (size_t i = 0; i < nr_pages; i++) {
		bool fast = node_is_top(tier, status[i]);

		if (i % opt.stride == 0) {
			hot++;
			hot_fast += fast;
		} else {
			cold++;
			cold_fast += fast;
		}
	}
	printf(opt.csv ? "%.1f,%.2f,%.2f" : "%6.1f %8.2f %8.2f", t,
	       100.0 * hot_fast / hot, cold ? 100.0 * cold_fast / cold : 0.0);
	for (size_t c = 0; c < NR_COUNTERS; c++) {
		long v = vmstat_read(counters[c]);

		if (base[c] < 0)
			continue;
		if (opt.csv)
			printf(",%ld", v - base[c]);
		else
			printf(" %*ld", (int)strlen(counters[c]), v - base[c]);
	}
	printf("\n");
	fflush(stdout);
}

int main(int argc, char **argv)
{
	struct tiering tier;
	pthread_t *tids;
	long base[NR_COUNTERS];
	double start, next;
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
	nr_pages = (opt.size_mb << 20) / page_size;
	status = calloc(nr_pages, sizeof(*status));
	pages = calloc(nr_pages, sizeof(*pages));
	tids = calloc(opt.threads, sizeof(*tids));
	buf = mmap(NULL, opt.size_mb << 20, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!status || !pages || !tids || buf == MAP_FAILED) {
		perror("allocation");
		return 1;
	}
	madvise(buf, opt.size_mb << 20, opt.thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	if (place_on_node(buf, opt.size_mb << 20, tier.slow_node)) {
		perror("mbind");
		return 1;
	}

	for (size_t c = 0; c < NR_COUNTERS; c++)
		base[c] = vmstat_read(counters[c]);
	printf(opt.csv ? "t_s,hot_top_pct,cold_top_pct" : "%6s %8s %8s",
	       "t(s)", "hot%top", "cold%top");
	for (size_t c = 0; c < NR_COUNTERS; c++)
		if (base[c] >= 0)
			printf(opt.csv ? ",%s" : " %s", counters[c]);
	printf("\n");
	if (!opt.csv)
		printf("# %zu MiB on node %d, hot set: 1 page in %zu (%zu MiB), %zu thread(s)\n",
		       opt.size_mb, tier.slow_node, opt.stride,
		       opt.size_mb / opt.stride, opt.threads);

	for (size_t i = 0; i < opt.threads; i++)
		pthread_create(&tids[i], NULL, worker, (void *)i);
	start = now_s();
	report(0, base, status, pages, &tier);
	for (next = start + opt.interval; next <= start + opt.seconds + 1e-9;
	     next += opt.interval) {
		double t = next - now_s();

		if (t > 0)
			usleep(t * 1e6);
		report(now_s() - start, base, status, pages, &tier);
	}
	stop = 1;
	for (size_t i = 0; i < opt.threads; i++)
		pthread_join(tids[i], NULL);
	return 0;
}
