// SPDX-License-Identifier: GPL-2.0
/*
 * kvzipf: a small redis client for the benchmark harness (the redis-zipf
 * scenario of bench/bench-guest.sh).  It speaks RESP over redis-server's
 * unix socket and does one of two things:
 *
 *   kvzipf --load --socket PATH --keys N --value BYTES [--first K]
 *       SET key:%012d for keys K..N-1 (pipelined), values of BYTES bytes.
 *       A value of at least TAG_LEN bytes starts with a tag naming its key
 *       ("kvz:%012d;"), so that --map can find it in redis-server's memory.
 *
 *   kvzipf --map PID --keys N [--hot-pct P] [--theta S] [--seed N]
 *          [--meta [--near FILE]]
 *       After a --load: list the pages of process PID (redis-server) that
 *       hold the values of the most popular P% of the keys (10 by default;
 *       the popularity and permutation of a run with the same --keys,
 *       --theta and --seed), one hexadecimal address per line, for
 *       hotset --watch-pages.  It reads PID's writable private mappings
 *       through /proc/PID/mem (root) and finds the tags.  A last comment
 *       line tells how many values it found, how many of them are hot,
 *       the pages they take and the share of the GETs they get.  Values
 *       do not move afterwards: redis-server frees or reallocates a value
 *       only when it is written (and active defragmentation is off by
 *       default), and GETs do not write.
 *
 *       With --meta, a GET's other reads count too: the key's name (an
 *       sds "key:%012d"), the dict entry that points to it, the value's
 *       robj (which points to the value), and the bucket slot or chain
 *       pointer that points to the dict entry, each found by scanning for
 *       the pointer (redis-server 7.0's layout).  A page is then listed if
 *       the GETs that touch one of these, or a value, on it add up to at
 *       least the share of the least popular hot key: the pages as hot as
 *       the hot values' pages, which include the tables whose pages mix
 *       many keys.  The comment line adds how many objects of each kind it
 *       found, and how many pages get half to once and a quarter to half
 *       that share (how sharp the line between hot and not is).  What it
 *       does not find (the allocator's metadata, chain entries walked
 *       past, client buffers) is left out of the list.  These objects
 *       stay put too: GETs add no key, so the dict is not resized (active
 *       rehashing finishes a resize within seconds of the load's end).
 *       --near FILE (with --meta) writes the pages just under the line,
 *       those that get a quarter of that share or more, to FILE in the
 *       same form: where the promotions that miss the hot set go.
 *
 *   kvzipf --socket PATH --keys N [--theta S] [--clients C] [--seconds T]
 *          [--round-s R] [--seed N]
 *       GETs from C connections (one thread each) for T seconds, keys drawn
 *       from a Zipf-like distribution: the key of popularity rank r (0 the
 *       most popular) is asked with a probability proportional to
 *       1 / (r + 1)^S (S = 0.99 by default, as in YCSB).  Ranks are mapped
 *       to key numbers by a fixed permutation (r * A + B mod N), so that the
 *       popular keys are scattered over the keyspace, hence over
 *       redis-server's memory, not packed where they were loaded first.
 *       Every R seconds one line:
 *
 *         round=I t_s=T rps=X avg_ms=A p50_ms=P p99_ms=Q hits_pct=H
 *
 *       (rps over the round, latencies of its requests, the share of GETs
 *       that found their key).  Before the first round, a comment line
 *       tells how skewed the distribution is: the share of the requests that
 *       go to the most popular 1%, 10%, 25%, 50% of the keys.
 *
 * redis-benchmark's -r draws keys uniformly, hence this client.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/un.h>

/* Length of the tag that starts every value: "kvz:" 12 digits ";". */
#define TAG_LEN 17

static struct {
	const char *socket, *near;
	size_t keys, value, first, clients;
	double theta, seconds, round_s, hot_pct;
	unsigned long seed;
	bool load, meta;
	int map_pid;
} opt = { .keys = 100000, .value = 512, .clients = 8, .theta = 0.99,
	  .seconds = 60, .round_s = 5, .seed = 1, .hot_pct = 10 };

static double *cdf;		/* cdf[r]: P(rank <= r) */
static uint64_t perm_a, perm_b;
static volatile int stop;

/* One connection and its buffered reader. */
struct conn {
	int fd;
	char buf[65536];
	size_t len, pos;
};

/* Per client thread: the latencies of the current round, in microseconds. */
struct client {
	pthread_t tid;
	struct conn c;
	uint64_t rng;
	pthread_mutex_t lock;
	uint32_t *lat;
	size_t nr_lat, max_lat;
	uint64_t hits, gets;
	int err;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t next_rand(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static int conn_open(struct conn *c)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	c->len = c->pos = 0;
	c->fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (c->fd < 0)
		return -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", opt.socket);
	return connect(c->fd, (struct sockaddr *)&sa, sizeof(sa));
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= w;
	}
	return 0;
}

/* Next byte of the reply stream; -1 on error or end of stream. */
static int get_byte(struct conn *c)
{
	if (c->pos == c->len) {
		ssize_t r;

		do
			r = read(c->fd, c->buf, sizeof(c->buf));
		while (r < 0 && errno == EINTR);
		if (r <= 0)
			return -1;
		c->len = r;
		c->pos = 0;
	}
	return (unsigned char)c->buf[c->pos++];
}

/* One reply line without its CRLF, into @line (truncated to @max - 1). */
static int get_line(struct conn *c, char *line, size_t max)
{
	size_t n = 0;
	int ch, prev = 0;

	while ((ch = get_byte(c)) >= 0) {
		if (prev == '\r' && ch == '\n') {
			line[n ? n - 1 : 0] = '\0';
			return 0;
		}
		if (n < max - 1)
			line[n++] = ch;
		prev = ch;
	}
	return -1;
}

/* Skip @n bytes of the stream (a bulk string's payload and its CRLF). */
static int skip(struct conn *c, size_t n)
{
	while (n) {
		size_t avail;

		if (c->pos == c->len) {
			if (get_byte(c) < 0)
				return -1;
			c->pos--;	/* refilled: put the byte back */
		}
		avail = c->len - c->pos;
		if (avail > n)
			avail = n;
		c->pos += avail;
		n -= avail;
	}
	return 0;
}

/*
 * Read one reply: a status (+), an error (-), an integer (:) or a bulk
 * string ($, -1 for a missing key).  Returns 1 for a bulk string that was
 * found, 0 for any other well-formed reply, -1 on error.
 */
static int read_reply(struct conn *c)
{
	char line[128];
	long len;

	if (get_line(c, line, sizeof(line)))
		return -1;
	switch (line[0]) {
	case '+':
	case ':':
		return 0;
	case '-':
		fprintf(stderr, "kvzipf: redis error: %s\n", line + 1);
		return -1;
	case '$':
		len = strtol(line + 1, NULL, 10);
		if (len < 0)
			return 0;
		return skip(c, len + 2) ? -1 : 1;
	default:
		fprintf(stderr, "kvzipf: unexpected reply '%s'\n", line);
		return -1;
	}
}

/* The key of popularity rank @r. */
static size_t rank_key(size_t r)
{
	return (size_t)(((unsigned __int128)r * perm_a + perm_b) % opt.keys);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/*
 * x^-theta for x >= 1, as exp(-theta * ln x), without libm (the bench
 * programs link with -lpthread only): ln by halving to [1, 2) and the
 * atanh series, exp by halving the exponent's range and a Taylor series.
 */
static double pow_neg(double x, double theta)
{
	const double ln2 = 0.69314718055994530942;
	double z, z2, term, ln = 0, y, e = 1, f;
	int k = 0;

	while (x >= 2) {
		x /= 2;
		k++;
	}
	z = (x - 1) / (x + 1);
	z2 = z * z;
	term = z;
	for (int i = 1; i < 40; i += 2) {
		ln += term / i;
		term *= z2;
	}
	y = -theta * (2 * ln + k * ln2);	/* <= 0 */
	/* e^y = 2^-n * e^f, f = y + n ln2 in [0, ln2) */
	k = 0;
	while (y < 0) {
		y += ln2;
		k++;
	}
	f = y;
	term = 1;
	for (int i = 1; i < 25; i++) {
		term *= f / i;
		e += term;
	}
	while (k--)
		e /= 2;
	return e;
}

/* The CDF of the ranks and the permutation of the keys. */
static int setup_zipf(void)
{
	uint64_t s = opt.seed;
	double sum = 0;

	cdf = malloc(opt.keys * sizeof(*cdf));
	if (!cdf)
		return -1;
	for (size_t r = 0; r < opt.keys; r++) {
		sum += pow_neg((double)r + 1, opt.theta);
		cdf[r] = sum;
	}
	for (size_t r = 0; r < opt.keys; r++)
		cdf[r] /= sum;
	cdf[opt.keys - 1] = 1.0;
	do
		perm_a = next_rand(&s) % opt.keys;
	while (opt.keys > 1 && (perm_a == 0 || gcd(perm_a, opt.keys) != 1));
	if (opt.keys == 1)
		perm_a = 1;
	perm_b = next_rand(&s) % opt.keys;
	return 0;
}

static size_t draw_rank(uint64_t *rng)
{
	double u = (next_rand(rng) >> 11) * (1.0 / 9007199254740992.0);
	size_t lo = 0, hi = opt.keys - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cdf[mid] >= u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static void *client_fn(void *arg)
{
	struct client *cl = arg;
	char cmd[96], key[32];

	while (!stop) {
		size_t k = rank_key(draw_rank(&cl->rng));
		int klen = snprintf(key, sizeof(key), "key:%012zu", k);
		int n = snprintf(cmd, sizeof(cmd), "*2\r\n$3\r\nGET\r\n$%d\r\n%s\r\n", klen, key);
		double t0 = now_s(), us;
		int r;

		if (write_all(cl->c.fd, cmd, n) || (r = read_reply(&cl->c)) < 0) {
			cl->err = 1;
			stop = 1;
			break;
		}
		us = (now_s() - t0) * 1e6;
		pthread_mutex_lock(&cl->lock);
		if (cl->nr_lat == cl->max_lat) {
			size_t m = cl->max_lat ? 2 * cl->max_lat : 4096;
			uint32_t *p = realloc(cl->lat, m * sizeof(*p));

			if (!p) {
				pthread_mutex_unlock(&cl->lock);
				cl->err = 1;
				stop = 1;
				break;
			}
			cl->lat = p;
			cl->max_lat = m;
		}
		cl->lat[cl->nr_lat++] = us > 4e9 ? 4000000000u : (uint32_t)us;
		cl->hits += r == 1;
		cl->gets++;
		pthread_mutex_unlock(&cl->lock);
	}
	return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* --load: SET every key of [first, keys), 64 commands in flight. */
static int load(void)
{
	enum { DEPTH = 64 };
	struct conn c;
	size_t cap = opt.value + 128, sent = opt.first, acked = opt.first;
	char *cmd = malloc(cap), *val = malloc(opt.value + 1);

	if (!cmd || !val || conn_open(&c)) {
		perror("kvzipf: connect");
		return 1;
	}
	for (size_t i = 0; i < opt.value; i++)
		val[i] = 'a' + i % 26;
	val[opt.value] = '\0';
	while (acked < opt.keys) {
		while (sent < opt.keys && sent - acked < DEPTH) {
			char key[32], tag[32];
			int klen = snprintf(key, sizeof(key), "key:%012zu", sent);
			int n = snprintf(cmd, cap, "*3\r\n$3\r\nSET\r\n$%d\r\n%s\r\n$%zu\r\n",
					 klen, key, opt.value);
			size_t tlen = 0;

			if (opt.value >= TAG_LEN) {
				snprintf(tag, sizeof(tag), "kvz:%012zu;", sent);
				tlen = TAG_LEN;
			}
			if (write_all(c.fd, cmd, n) || write_all(c.fd, tag, tlen) ||
			    write_all(c.fd, val + tlen, opt.value - tlen) ||
			    write_all(c.fd, "\r\n", 2)) {
				perror("kvzipf: write");
				return 1;
			}
			sent++;
		}
		if (read_reply(&c) < 0) {
			fprintf(stderr, "kvzipf: SET failed\n");
			return 1;
		}
		acked++;
	}
	close(c.fd);
	return 0;
}

/* Share of the requests that go to the most popular @frac of the keys. */
static double top_share(double frac)
{
	size_t n = (size_t)(frac * opt.keys);

	return n ? 100 * cdf[n - 1] : 0;
}

static int run(void)
{
	struct client *cls = calloc(opt.clients, sizeof(*cls));
	double start, next;
	int rc = 0;

	if (!cls || setup_zipf()) {
		perror("kvzipf: allocation");
		return 1;
	}
	printf("# kvzipf: keys=%zu theta=%.2f clients=%zu seconds=%.0f round_s=%.1f "
	       "top1pct=%.1f top10pct=%.1f top25pct=%.1f top50pct=%.1f\n",
	       opt.keys, opt.theta, opt.clients, opt.seconds, opt.round_s,
	       top_share(0.01), top_share(0.10), top_share(0.25), top_share(0.50));
	fflush(stdout);
	for (size_t i = 0; i < opt.clients; i++) {
		cls[i].rng = opt.seed * 0x9e3779b97f4a7c15ULL + i + 1;
		pthread_mutex_init(&cls[i].lock, NULL);
		if (conn_open(&cls[i].c)) {
			perror("kvzipf: connect");
			return 1;
		}
	}
	start = now_s();
	for (size_t i = 0; i < opt.clients; i++)
		if (pthread_create(&cls[i].tid, NULL, client_fn, &cls[i])) {
			perror("kvzipf: thread");
			return 1;
		}
	for (int round = 0; !stop; round++) {
		uint32_t *all = NULL;
		size_t nr = 0;
		uint64_t hits = 0, gets = 0;
		double sum = 0, t;

		next = start + (round + 1) * opt.round_s;
		if (next > start + opt.seconds)
			next = start + opt.seconds;
		while (!stop && (t = now_s()) < next)
			usleep((next - t) * 1e6 < 100000 ? (next - t) * 1e6 + 1 : 100000);
		t = now_s();
		/* Take each client's latencies of the round. */
		for (size_t i = 0; i < opt.clients; i++) {
			struct client *cl = &cls[i];
			uint32_t *p;

			pthread_mutex_lock(&cl->lock);
			p = realloc(all, (nr + cl->nr_lat + 1) * sizeof(*all));
			if (p) {
				all = p;
				memcpy(all + nr, cl->lat, cl->nr_lat * sizeof(*all));
				nr += cl->nr_lat;
			}
			cl->nr_lat = 0;
			hits += cl->hits;
			gets += cl->gets;
			cl->hits = cl->gets = 0;
			pthread_mutex_unlock(&cl->lock);
		}
		if (nr) {
			double len = t - (start + round * opt.round_s);

			qsort(all, nr, sizeof(*all), cmp_u32);
			for (size_t k = 0; k < nr; k++)
				sum += all[k];
			printf("round=%d t_s=%.1f rps=%.0f avg_ms=%.3f p50_ms=%.3f p99_ms=%.3f "
			       "hits_pct=%.1f\n", round, t - start, nr / (len > 0 ? len : 1),
			       sum / nr / 1000, all[nr / 2] / 1000.0,
			       all[(size_t)(nr * 0.99)] / 1000.0, 100.0 * hits / gets);
			fflush(stdout);
		}
		free(all);
		if (t >= start + opt.seconds - 1e-6)
			stop = 1;
	}
	for (size_t i = 0; i < opt.clients; i++) {
		pthread_join(cls[i].tid, NULL);
		if (cls[i].err)
			rc = 1;
	}
	if (rc)
		fprintf(stderr, "kvzipf: a client failed (connection or reply error)\n");
	return rc;
}

/* --map: the pages found so far, growing, each with the GET share it gets. */
struct page_list {
	uint64_t *addr;
	double *share;
	size_t nr, max;
};

static int page_list_add(struct page_list *l, uint64_t addr, double share)
{
	if (l->nr == l->max) {
		size_t m = l->max ? 2 * l->max : 65536;
		uint64_t *p = realloc(l->addr, m * sizeof(*p));
		double *q;

		if (!p)
			return -1;
		l->addr = p;
		q = realloc(l->share, m * sizeof(*q));
		if (!q)
			return -1;
		l->share = q;
		l->max = m;
	}
	l->addr[l->nr] = addr;
	l->share[l->nr++] = share;
	return 0;
}

/* Add @share to every page of [@a, @a + @len). */
static int page_list_add_range(struct page_list *l, uint64_t a, size_t len,
			       double share, size_t pgsz)
{
	uint64_t last = a + len - 1;

	for (a &= ~(uint64_t)(pgsz - 1); a <= last; a += pgsz)
		if (page_list_add(l, a, share))
			return -1;
	return 0;
}

static int cmp_page(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* Sort @l by page, one entry per page with the sum of its shares. */
static int page_list_merge(struct page_list *l)
{
	struct { uint64_t addr; double share; } *e = malloc((l->nr + 1) * sizeof(*e));
	size_t n = 0;

	if (!e)
		return -1;
	for (size_t i = 0; i < l->nr; i++) {
		e[i].addr = l->addr[i];
		e[i].share = l->share[i];
	}
	qsort(e, l->nr, sizeof(*e), cmp_page);
	for (size_t i = 0; i < l->nr; i++) {
		if (n && l->addr[n - 1] == e[i].addr) {
			l->share[n - 1] += e[i].share;
			continue;
		}
		l->addr[n] = e[i].addr;
		l->share[n++] = e[i].share;
	}
	free(e);
	l->nr = n;
	return 0;
}

/* --meta: addresses of redis-server's per-key objects, to their key. */
struct addr_map {
	uint64_t *addr;		/* 0: empty slot */
	uint32_t *key;
	size_t mask, nr;
	uint64_t lo, hi;	/* the range of the addresses held */
};

static int addr_map_init(struct addr_map *m, size_t max)
{
	size_t cap = 1024;

	while (cap < 2 * max)
		cap *= 2;
	m->addr = calloc(cap, sizeof(*m->addr));
	m->key = calloc(cap, sizeof(*m->key));
	m->mask = cap - 1;
	m->nr = 0;
	m->lo = UINT64_MAX;
	m->hi = 0;
	return m->addr && m->key ? 0 : -1;
}

static size_t addr_slot(const struct addr_map *m, uint64_t a)
{
	size_t i = (size_t)((a >> 3) * 0x9e3779b97f4a7c15ULL >> 20) & m->mask;

	while (m->addr[i] && m->addr[i] != a)
		i = (i + 1) & m->mask;
	return i;
}

/* Map @a to @k; a full map (more than half used) keeps the old ones. */
static void addr_map_put(struct addr_map *m, uint64_t a, size_t k)
{
	size_t i;

	if (!a || 2 * (m->nr + 1) > m->mask + 1)
		return;
	i = addr_slot(m, a);
	if (!m->addr[i])
		m->nr++;
	m->addr[i] = a;
	m->key[i] = k;
	if (a < m->lo)
		m->lo = a;
	if (a > m->hi)
		m->hi = a;
}

/* The key @a maps to, or -1. */
static long long addr_map_get(const struct addr_map *m, uint64_t a)
{
	size_t i;

	if (a < m->lo || a > m->hi)
		return -1;
	i = addr_slot(m, a);
	return m->addr[i] ? (long long)m->key[i] : -1;
}

/* Length of a key's name: "key:" and 12 digits. */
#define KEY_LEN 16

/* What --map knows of redis-server's memory. */
struct map_state {
	struct page_list pages;
	struct addr_map values;	/* value sds -> key */
	struct addr_map names;	/* key name sds -> key (candidates) */
	struct addr_map entries;	/* dict entry -> key */
	uint8_t *seen;		/* per key: MAP_SEEN_* counted already */
	size_t found;
	size_t pgsz;
	double hot_share;	/* share of the least popular hot key */
	const bool *is_hot;
};

enum { MAP_SEEN_ROBJ = 1, MAP_SEEN_ENTRY = 2, MAP_SEEN_SLOT = 4 };

/* Share of the GETs that go to key @k. */
static double key_share(size_t k, const uint32_t *rank)
{
	size_t r = rank[k];

	return r ? cdf[r] - cdf[r - 1] : cdf[0];
}

/* Parse @n decimal digits at @p; -1 if one is not a digit. */
static long long digits(const char *p, int n)
{
	long long k = 0;

	for (int i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		k = k * 10 + (p[i] - '0');
	}
	return k;
}

/* Parse the 12 digits of a tag; -1 if @p is not a whole tag. */
static long long tag_key(const char *p)
{
	if (memcmp(p, "kvz:", 4) || p[TAG_LEN - 1] != ';')
		return -1;
	return digits(p + 4, TAG_LEN - 5);
}

/* Parse a key's name as an sds holds it ("key:" 12 digits, a NUL); or -1. */
static long long name_key(const char *p)
{
	if (memcmp(p, "key:", 4) || p[KEY_LEN] != '\0')
		return -1;
	return digits(p + 4, KEY_LEN - 4);
}

/*
 * The strings at @p (address @a) of a chunk that starts at @buf: a value's
 * tag, or with --meta a key's name.
 */
static int map_string(struct map_state *st, const char *buf, const char *p,
		      uint64_t a, const uint32_t *rank)
{
	long long k = tag_key(p);

	/*
	 * A tag or a name right after a line end is a copy in a protocol
	 * buffer ("$BYTES\r\n" then the string), not a stored sds, which
	 * comes after its header.
	 */
	if (p > buf && p[-1] == '\n')
		return 0;
	if (k >= 0 && (size_t)k < opt.keys) {
		st->found++;
		if (!opt.meta) {
			if (st->is_hot[k])
				return page_list_add_range(&st->pages, a, opt.value, 1, st->pgsz);
			return 0;
		}
		addr_map_put(&st->values, a, k);
		return page_list_add_range(&st->pages, a, opt.value,
					   key_share(k, rank), st->pgsz);
	}
	k = opt.meta ? name_key(p) : -1;
	if (k >= 0 && (size_t)k < opt.keys)
		addr_map_put(&st->names, a, k);
	return 0;
}

/*
 * Count key @k's object of kind @seen, [@a, @a + @len), on its pages, once:
 * a stale pointer found later (in freed memory) adds nothing.
 */
static int map_object(struct map_state *st, long long k, uint8_t seen, uint64_t a,
		      size_t len, const uint32_t *rank)
{
	if (st->seen[k] & seen)
		return 0;
	st->seen[k] |= seen;
	return page_list_add_range(&st->pages, a, len, key_share(k, rank), st->pgsz);
}

/*
 * The word @w at address @a, in pass @pass (see map_range()): a robj's ptr
 * to a value, a dict entry's key (the entry's first word), or a slot or a
 * next pointer to a dict entry.
 */
static int map_word(struct map_state *st, int pass, uint64_t a, uint64_t w,
		    const uint32_t *rank)
{
	long long k;

	if (pass == 1 && (k = addr_map_get(&st->values, w)) >= 0)
		return map_object(st, k, MAP_SEEN_ROBJ, a, 8, rank);
	if (pass == 1 && (k = addr_map_get(&st->names, w)) >= 0) {
		if (st->seen[k] & MAP_SEEN_ENTRY)
			return 0;
		addr_map_put(&st->entries, a, k);
		/* The name is read through the entry: count it with the entry. */
		if (page_list_add_range(&st->pages, w, KEY_LEN, key_share(k, rank), st->pgsz))
			return -1;
		return map_object(st, k, MAP_SEEN_ENTRY, a, 24, rank);
	}
	if (pass == 2 && (k = addr_map_get(&st->entries, w)) >= 0)
		return map_object(st, k, MAP_SEEN_SLOT, a, 8, rank);
	return 0;
}

/*
 * Scan [@start, @end) of the process behind @mem.  Pass 0 finds the
 * strings (tags, names); pass 1 the words that point to a value (a robj's
 * ptr, 8 bytes into it) or to a name (a dict entry's key, its first word);
 * pass 2 the words that point to a dict entry (a bucket slot or the next
 * pointer of another entry).  Reads in chunks that overlap by a tag, so
 * that a string across a chunk boundary is seen once.
 */
static int map_range(int mem, uint64_t start, uint64_t end, int pass,
		     struct map_state *st, const uint32_t *rank)
{
	enum { CHUNK = 1 << 20 };
	static char buf[CHUNK + TAG_LEN];

	for (uint64_t at = start; at < end; at += CHUNK) {
		size_t want = end - at < CHUNK + TAG_LEN ? end - at : CHUNK + TAG_LEN;
		size_t scan = want < CHUNK ? want : CHUNK;
		ssize_t got = pread(mem, buf, want, (off_t)at);
		char *p = buf, *end_colon;

		if (got < (ssize_t)want)
			continue;	/* an unreadable hole (guard page, unmapped) */
		if (pass > 0) {
			for (size_t off = 0; off + 8 <= scan; off += 8) {
				uint64_t w;

				memcpy(&w, buf + off, 8);
				if (map_word(st, pass, at + off, w, rank))
					return -1;
			}
			continue;
		}
		/*
		 * A string is this chunk's if it starts before @scan: its
		 * colon, 3 bytes in, may be past it.
		 */
		end_colon = buf + (scan + 3 < want ? scan + 3 : want);
		while ((p = memchr(p, ':', end_colon - p))) {
			char *s = p - 3;

			p++;
			if (s < buf || s + TAG_LEN > buf + want)
				continue;
			if (map_string(st, buf, s, at + (s - buf), rank))
				return -1;
		}
	}
	return 0;
}

/* Run pass @pass of map_range() over the writable private mappings of PID. */
static int map_pass(int pass, struct map_state *st, const uint32_t *rank)
{
	char path[64], line[512];
	FILE *maps;
	int mem, rc = 0;

	snprintf(path, sizeof(path), "/proc/%d/maps", opt.map_pid);
	maps = fopen(path, "r");
	snprintf(path, sizeof(path), "/proc/%d/mem", opt.map_pid);
	mem = open(path, O_RDONLY);
	if (!maps || mem < 0) {
		perror("kvzipf: /proc/PID/maps or mem");
		if (maps)
			fclose(maps);
		if (mem >= 0)
			close(mem);
		return -1;
	}
	while (!rc && fgets(line, sizeof(line), maps)) {
		unsigned long long start, end;
		char perms[8];

		/* Values live in anonymous private memory: skip the rest. */
		if (sscanf(line, "%llx-%llx %7s", &start, &end, perms) != 3 ||
		    perms[0] != 'r' || perms[1] != 'w' || perms[3] != 'p' ||
		    strstr(line, "[vvar]") || strstr(line, "[vsyscall]"))
			continue;
		rc = map_range(mem, start, end, pass, st, rank);
		if (rc)
			fprintf(stderr, "kvzipf: out of memory\n");
	}
	fclose(maps);
	close(mem);
	return rc;
}

/* --near: the pages under @line that get at least a quarter of the hot share. */
static int write_near(const struct map_state *st, double line)
{
	size_t nr = 0;
	FILE *f = fopen(opt.near, "w");

	if (!f) {
		perror(opt.near);
		return -1;
	}
	for (size_t i = 0; i < st->pages.nr; i++) {
		double sh = st->pages.share[i];

		if (sh >= line || sh < st->hot_share / 4)
			continue;
		fprintf(f, "%llx\n", (unsigned long long)st->pages.addr[i]);
		nr++;
	}
	fprintf(f, "# kvzipf near: pages=%zu share=[%.3g, %.3g)\n", nr,
		st->hot_share / 4, st->hot_share);
	if (fclose(f)) {
		perror(opt.near);
		return -1;
	}
	return 0;
}

/* --map: print the pages that hold the hot keys' values (--meta: and more). */
static int map(void)
{
	size_t hot_keys, listed = 0;
	double line;
	struct map_state st = { .pgsz = sysconf(_SC_PAGESIZE) };
	uint32_t *rank;
	bool *is_hot;

	if (setup_zipf())
		return 1;
	hot_keys = (size_t)(opt.hot_pct / 100 * opt.keys);
	is_hot = calloc(opt.keys, sizeof(*is_hot));
	rank = calloc(opt.keys, sizeof(*rank));
	st.seen = calloc(opt.keys, sizeof(*st.seen));
	if (!is_hot || !rank || !st.seen)
		return 1;
	for (size_t r = 0; r < opt.keys; r++) {
		rank[rank_key(r)] = r;
		if (r < hot_keys)
			is_hot[rank_key(r)] = true;
	}
	st.is_hot = is_hot;
	st.hot_share = hot_keys ? key_share(rank_key(hot_keys - 1), rank) : 1;
	if (opt.meta && (addr_map_init(&st.values, 2 * opt.keys) ||
			 addr_map_init(&st.names, 4 * opt.keys) ||
			 addr_map_init(&st.entries, opt.keys)))
		return 1;
	for (int pass = 0; pass < (opt.meta ? 3 : 1); pass++)
		if (map_pass(pass, &st, rank))
			return 1;
	if (page_list_merge(&st.pages))
		return 1;
	/*
	 * Without --meta only the hot values' pages were added; with it, a
	 * page is hot if it gets as many GETs as the least popular hot
	 * value.  The float sum may round that value's own share down by a
	 * few ulps: hence the slack.
	 */
	line = st.hot_share * (1 - 1e-9);
	for (size_t i = 0; i < st.pages.nr; i++) {
		if (opt.meta && st.pages.share[i] < line)
			continue;
		printf("%llx\n", (unsigned long long)st.pages.addr[i]);
		listed++;
	}
	if (opt.near && write_near(&st, line))
		return 1;
	printf("# kvzipf map: values_found=%zu keys=%zu hot_keys=%zu hot_pages=%zu "
	       "hot_gets_pct=%.1f", st.found, opt.keys, hot_keys, listed,
	       hot_keys ? 100 * cdf[hot_keys - 1] : 0.0);
	if (opt.meta) {
		size_t robjs = 0, slots = 0, half = 0, quarter = 0;

		for (size_t k = 0; k < opt.keys; k++) {
			robjs += !!(st.seen[k] & MAP_SEEN_ROBJ);
			slots += !!(st.seen[k] & MAP_SEEN_SLOT);
		}
		/* How sharp the line is: the pages just under it. */
		for (size_t i = 0; i < st.pages.nr; i++) {
			double sh = st.pages.share[i];

			half += sh < line && sh >= st.hot_share / 2;
			quarter += sh < st.hot_share / 2 && sh >= st.hot_share / 4;
		}
		printf(" meta=1 robjs=%zu entries=%zu slots=%zu pages_seen=%zu hot_key_share=%.3g"
		       " pages_half_as_hot=%zu pages_quarter_as_hot=%zu",
		       robjs, st.entries.nr, slots, st.pages.nr, st.hot_share, half, quarter);
	}
	printf("\n");
	if (st.found < opt.keys) {
		fprintf(stderr, "kvzipf: found %zu of %zu values (loaded without tags?)\n",
			st.found, opt.keys);
		return 1;
	}
	if (opt.meta && st.entries.nr < opt.keys) {
		fprintf(stderr, "kvzipf: found %zu of %zu dict entries (not redis 7.0's layout?)\n",
			st.entries.nr, opt.keys);
		return 1;
	}
	return 0;
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s --socket PATH --keys N --load [--value BYTES] [--first K]\n"
		"       %s --socket PATH --keys N [--theta S] [--clients C] [--seconds T]\n"
		"          [--round-s R] [--seed N]\n"
		"       %s --map PID --keys N --value BYTES [--hot-pct P] [--theta S]\n"
		"          [--seed N] [--meta [--near FILE]]\n", prog, prog, prog);
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "socket", 1, 0, 's' }, { "keys", 1, 0, 'k' }, { "value", 1, 0, 'v' },
		{ "first", 1, 0, 'f' }, { "clients", 1, 0, 'c' }, { "theta", 1, 0, 't' },
		{ "seconds", 1, 0, 'd' }, { "round-s", 1, 0, 'r' }, { "seed", 1, 0, 'S' },
		{ "load", 0, 0, 'L' }, { "map", 1, 0, 'M' }, { "hot-pct", 1, 0, 'H' },
		{ "meta", 0, 0, 'm' }, { "near", 1, 0, 'N' }, { 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 's': opt.socket = optarg; break;
		case 'k': opt.keys = strtoul(optarg, NULL, 0); break;
		case 'v': opt.value = strtoul(optarg, NULL, 0); break;
		case 'f': opt.first = strtoul(optarg, NULL, 0); break;
		case 'c': opt.clients = strtoul(optarg, NULL, 0); break;
		case 't': opt.theta = strtod(optarg, NULL); break;
		case 'd': opt.seconds = strtod(optarg, NULL); break;
		case 'r': opt.round_s = strtod(optarg, NULL); break;
		case 'S': opt.seed = strtoul(optarg, NULL, 0); break;
		case 'L': opt.load = true; break;
		case 'M': opt.map_pid = strtol(optarg, NULL, 0); break;
		case 'H': opt.hot_pct = strtod(optarg, NULL); break;
		case 'm': opt.meta = true; break;
		case 'N': opt.near = optarg; break;
		default: usage(argv[0]);
		}
	}
	if (opt.map_pid > 0) {
		if (!opt.keys || opt.value < TAG_LEN || opt.theta < 0 || opt.hot_pct <= 0 ||
		    opt.hot_pct > 100 || (opt.near && !opt.meta) || optind != argc)
			usage(argv[0]);
		return map();
	}
	if (!opt.socket || !opt.keys || !opt.value || !opt.clients || opt.theta < 0 ||
	    opt.seconds <= 0 || opt.round_s <= 0 || opt.first > opt.keys || optind != argc)
		usage(argv[0]);
	return opt.load ? load() : run();
}
