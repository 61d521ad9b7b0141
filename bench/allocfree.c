// SPDX-License-Identifier: GPL-2.0
/*
 * allocfree: the cost of allocating and freeing pages on one node, for
 * measuring what pghot adds to the page allocator (its free hook resets the
 * hotness record of every lower-tier page freed while it has records).
 *
 * Each round maps --mb MiB of anonymous memory without THP, binds it to
 * --node, touches every page (one page fault and one allocation each) and
 * unmaps it (one free each).  Prints one CSV line per round:
 *
 *   round,pages,fault_ns_per_page,free_ns_per_page,total_ns_per_page
 *
 * after a header line, and fails if a sampled page is not on --node, so
 * that a run never measures the wrong node.  --label adds a first column.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <time.h>

#include "tiering.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Check that pages one in @step of @buf sit on @node. */
static int check_node(char *buf, size_t nr, size_t page, int node)
{
	enum { SAMPLES = 64 };
	void *pages[SAMPLES];
	int status[SAMPLES];
	size_t step = nr / SAMPLES ? nr / SAMPLES : 1, n = 0;

	for (size_t i = 0; i < nr && n < SAMPLES; i += step)
		pages[n++] = buf + i * page;
	if (sys_move_pages(n, pages, NULL, status, 0))
		return -errno;
	for (size_t i = 0; i < n; i++)
		if (status[i] != node)
			return -EXDEV;
	return 0;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s --node N [--mb M] [--rounds R] [--label L]\n",
		prog);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "node", 1, 0, 'n' }, { "mb", 1, 0, 'm' },
		{ "rounds", 1, 0, 'r' }, { "label", 1, 0, 'l' },
		{ 0, 0, 0, 0 }
	};
	size_t page = getpagesize(), mb = 128, nr, size;
	int node = -1, rounds = 5, c;
	const char *label = NULL;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n': node = atoi(optarg); break;
		case 'm': mb = strtoul(optarg, NULL, 0); break;
		case 'r': rounds = atoi(optarg); break;
		case 'l': label = optarg; break;
		default: usage(argv[0]);
		}
	}
	if (node < 0 || node >= MAX_NODES || !mb || rounds < 1)
		usage(argv[0]);
	size = mb << 20;
	nr = size / page;

	printf("%sround,pages,fault_ns_per_page,free_ns_per_page,total_ns_per_page\n",
	       label ? "label," : "");
	for (int r = 0; r < rounds; r++) {
		unsigned long mask = 1UL << node;
		double t0, t1, t2;
		char *buf;
		int err;

		buf = mmap(NULL, size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		if (madvise(buf, size, MADV_NOHUGEPAGE) ||
		    sys_mbind(buf, size, MPOL_BIND, &mask, MAX_NODES + 1, 0)) {
			perror("madvise/mbind");
			return 1;
		}
		t0 = now_ns();
		for (size_t i = 0; i < nr; i++)
			buf[i * page] = 1;
		t1 = now_ns();
		err = check_node(buf, nr, page, node);
		if (err) {
			fprintf(stderr, "pages not on node %d: %s\n", node,
				strerror(-err));
			return 1;
		}
		t2 = now_ns();
		munmap(buf, size);
		t2 = now_ns() - t2;
		if (label)
			printf("%s,", label);
		printf("%d,%zu,%.1f,%.1f,%.1f\n", r, nr, (t1 - t0) / nr,
		       t2 / nr, (t1 - t0 + t2) / nr);
		fflush(stdout);
	}
	return 0;
}
