/* redis_consume: the Redis Streams consume side of tools/bench/compare.sh, on hiredis.
 *
 *   redis_consume -h 127.0.0.1 -p 6379 --key s --messages N [--count 256]
 *
 * Reads stream `key` from its first entry with XREAD COUNT `count` STREAMS key LAST_ID, one
 * request at a time, each starting after the last ID the previous one returned, until N entries
 * arrived (XREAD without BLOCK: the stream is filled before). The cheapest honest walk of a stream
 * with redis-cli's own protocol library; XRANGE with a moving start would cost the same.
 *
 * Output, one line: "consume msgs=.. seconds=.. msgs_per_s=.. mb_per_s=..". Exit 0 when N
 * entries were read, 1 otherwise (the stream ended first, or a connection error), 2 for bad
 * flags. Built by compare.sh with cc directly (cc -O2 redis_consume.c -lhiredis). */
#include <hiredis/hiredis.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int usage(const char* why) {
  fprintf(stderr, "redis_consume: %s\nusage: redis_consume -h HOST -p PORT --key KEY --messages N [--count C]\n", why);
  return 2;
}

int main(int argc, char** argv) {
  const char* host = "127.0.0.1";
  const char* key = NULL;
  int port = 6379;
  long n = 0, count = 256;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--help") == 0) {
      printf("usage: redis_consume -h HOST -p PORT --key KEY --messages N [--count C]\n");
      return 0;
    }
    if (i + 1 >= argc) return usage("a flag without its value");
    const char* a = argv[i];
    const char* v = argv[++i];
    if (strcmp(a, "-h") == 0) host = v;
    else if (strcmp(a, "-p") == 0) port = atoi(v);
    else if (strcmp(a, "--key") == 0) key = v;
    else if (strcmp(a, "--messages") == 0) n = atol(v);
    else if (strcmp(a, "--count") == 0) count = atol(v);
    else return usage("unknown flag");
  }
  if (key == NULL || n < 1 || count < 1 || count > 100000 || port < 1 || port > 65535) {
    return usage("--key and --messages N (>= 1) are required; --count 1..100000");
  }
  redisContext* c = redisConnect(host, port);
  if (c == NULL || c->err) {
    fprintf(stderr, "redis_consume: connect %s:%d: %s\n", host, port, c ? c->errstr : "no memory");
    return 1;
  }
  char last[64] = "0-0";
  char count_text[32];
  snprintf(count_text, sizeof count_text, "%ld", count);
  long got = 0;
  double bytes = 0;
  int rc = 0;
  const double t0 = now_s();
  while (got < n) {
    const char* args[] = {"XREAD", "COUNT", count_text, "STREAMS", key, last};
    redisReply* r = redisCommandArgv(c, 6, args, NULL);
    if (r == NULL) {
      fprintf(stderr, "redis_consume: XREAD after %ld entries: %s\n", got, c->errstr);
      rc = 1;
      break;
    }
    /* [[key, [[id, [field, value, ...]], ...]]], or nil when nothing is left */
    if (r->type != REDIS_REPLY_ARRAY || r->elements < 1 || r->element[0]->type != REDIS_REPLY_ARRAY ||
        r->element[0]->elements < 2 || r->element[0]->element[1]->type != REDIS_REPLY_ARRAY) {
      fprintf(stderr, "redis_consume: the stream ended after %ld of %ld entries (reply type %d)\n", got, n, r->type);
      freeReplyObject(r);
      rc = 1;
      break;
    }
    const redisReply* entries = r->element[0]->element[1];
    for (size_t i = 0; i < entries->elements; ++i) {
      const redisReply* e = entries->element[i];
      if (e->type != REDIS_REPLY_ARRAY || e->elements < 2 || e->element[0]->type != REDIS_REPLY_STRING) continue;
      const redisReply* fields = e->element[1];
      for (size_t f = 1; fields->type == REDIS_REPLY_ARRAY && f < fields->elements; f += 2) bytes += (double)fields->element[f]->len;
      if (i + 1 == entries->elements) snprintf(last, sizeof last, "%.*s", (int)e->element[0]->len, e->element[0]->str);
      ++got;
    }
    freeReplyObject(r);
    if (entries->elements == 0) break;
  }
  const double secs = now_s() - t0;
  printf("consume msgs=%ld seconds=%.3f msgs_per_s=%.1f mb_per_s=%.3f\n", got, secs, secs > 0 ? got / secs : 0.0,
         secs > 0 ? bytes / secs / 1e6 : 0.0);
  redisFree(c);
  return rc == 0 && got >= n ? 0 : 1;
}
