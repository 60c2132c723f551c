/* nats_bench: the NATS JetStream side of tools/bench/compare.sh, on libnats (the C client).
 *
 *   nats_bench -s nats://127.0.0.1:4222 [--mode async|sync] [--messages N] [--size BYTES]
 *              [--window W] [--stream NAME] [--consume]
 *
 * Creates (or reuses) a file-storage stream NAME (default BENCH) on subject NAME.x, then
 *   sync:  publishes N messages one at a time, each js_Publish() awaiting its ack;
 *   async: js_PublishAsync() with at most W (256) publishes awaiting their ack (libnats'
 *          PublishAsync.MaxPending: a publish beyond it stalls until an ack arrives).
 * Latency of a message: from just before its publish call to its ack (the sync call's return,
 * or the async ack handler). Then with --consume: a durable pull consumer (AckAll) fetches the
 * whole stream from its first message in batches of 256, acknowledging the last of each batch,
 * until N messages arrived.
 *
 * Output, one line each (key=value, for the script): "produce msgs=.. errors=.. seconds=..
 * msgs_per_s=.. mb_per_s=.. p50_ms=.. p99_ms=.. p999_ms=.. max_ms=.." and "consume msgs=..
 * seconds=.. msgs_per_s=.. mb_per_s=..". Exit 0 when every publish was acknowledged (and
 * everything was consumed), 1 otherwise, 2 for bad flags.
 *
 * Built by compare.sh with cc directly (cc -O2 nats_bench.c -lnats); the project's CMake build
 * does not need libnats. */
#include <nats/nats.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_i64(const void* a, const void* b) {
  const int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return (x > y) - (x < y);
}

/* Shared with the async ack handler (libnats' thread), under `mu`. */
static struct {
  pthread_mutex_t mu;
  int64_t* sent_ns;    /* by message index: when its publish started */
  int64_t* lat_ns;     /* latencies of acknowledged messages, in ack order */
  int64_t acked;
  int64_t errors;
  long count;
} g = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0, 0, 0};

static void on_ack(jsCtx* js, natsMsg* msg, jsPubAck* pa, jsPubAckErr* pae, void* closure) {
  (void)js;
  (void)closure;
  const int64_t t = now_ns();
  int64_t index = -1;
  if (natsMsg_GetDataLength(msg) >= 8) memcpy(&index, natsMsg_GetData(msg), sizeof index);
  pthread_mutex_lock(&g.mu);
  if (pa != NULL && pae == NULL && index >= 0 && index < g.count) {
    g.lat_ns[g.acked++] = t - g.sent_ns[index];
  } else {
    g.errors++;
  }
  pthread_mutex_unlock(&g.mu);
  natsMsg_Destroy(msg);
}

static double pct_ms(const int64_t* sorted, int64_t n, double p) {
  if (n == 0) return 0;
  int64_t i = (int64_t)(p / 100.0 * (double)(n - 1) + 0.5);
  return (double)sorted[i] / 1e6;
}

static const char kUsage[] =
    "usage: nats_bench -s URL [--mode async|sync] [--messages N] [--size BYTES] [--window W] [--stream NAME] "
    "[--consume]\n";

static int usage(const char* why) {
  fprintf(stderr, "nats_bench: %s\n%s", why, kUsage);
  return 2;
}

static int consume(jsCtx* js, const char* subject, const char* stream, long n, long size) {
  natsSubscription* sub = NULL;
  jsErrCode jerr = 0;
  jsSubOptions so;
  jsSubOptions_Init(&so);
  so.Stream = stream;
  so.Config.AckPolicy = js_AckAll;
  so.Config.MaxAckPending = -1;
  natsStatus s = js_PullSubscribe(&sub, js, subject, "nats-bench-consumer", NULL, &so, &jerr);
  if (s != NATS_OK) {
    fprintf(stderr, "nats_bench: pull subscribe: %s (%d)\n", natsStatus_GetText(s), (int)jerr);
    return 1;
  }
  long got = 0;
  const int64_t t0 = now_ns();
  while (got < n) {
    natsMsgList list = {0};
    s = natsSubscription_Fetch(&list, sub, 256, 5000, &jerr);
    if (s != NATS_OK) {
      fprintf(stderr, "nats_bench: fetch after %ld messages: %s (%d)\n", got, natsStatus_GetText(s), (int)jerr);
      break;
    }
    got += list.Count;
    if (list.Count > 0) natsMsg_Ack(list.Msgs[list.Count - 1], NULL);
    natsMsgList_Destroy(&list);
  }
  const double secs = (double)(now_ns() - t0) / 1e9;
  printf("consume msgs=%ld seconds=%.3f msgs_per_s=%.1f mb_per_s=%.3f\n", got, secs, secs > 0 ? got / secs : 0.0,
         secs > 0 ? got * (double)size / secs / 1e6 : 0.0);
  natsSubscription_Destroy(sub);
  return got >= n ? 0 : 1;
}

int main(int argc, char** argv) {
  const char* url = NULL;
  const char* mode = "async";
  const char* stream = "BENCH";
  long n = 100000, size = 1024, window = 256;
  int do_consume = 0;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(kUsage, stdout);
      return 0;
    }
    if (strcmp(a, "--consume") == 0) { do_consume = 1; continue; }
    if (v == NULL) return usage("a flag without its value");
    ++i;
    if (strcmp(a, "-s") == 0) url = v;
    else if (strcmp(a, "--mode") == 0) mode = v;
    else if (strcmp(a, "--stream") == 0) stream = v;
    else if (strcmp(a, "--messages") == 0) n = atol(v);
    else if (strcmp(a, "--size") == 0) size = atol(v);
    else if (strcmp(a, "--window") == 0) window = atol(v);
    else return usage("unknown flag");
  }
  if (url == NULL) return usage("-s URL is required");
  if (n < 1 || n > 100000000 || size < 8 || size > 8 * 1024 * 1024 || window < 1 || window > 1000000) {
    return usage("--messages 1..1e8, --size 8..8 MiB, --window 1..1e6");
  }
  const int async_mode = strcmp(mode, "async") == 0;
  if (!async_mode && strcmp(mode, "sync") != 0) return usage("--mode is async or sync");

  natsConnection* nc = NULL;
  natsStatus s = natsConnection_ConnectTo(&nc, url);
  if (s != NATS_OK) {
    fprintf(stderr, "nats_bench: connect %s: %s\n", url, natsStatus_GetText(s));
    return 1;
  }
  jsOptions jo;
  jsOptions_Init(&jo);
  if (async_mode) {
    jo.PublishAsync.MaxPending = window;
    jo.PublishAsync.AckHandler = on_ack;
  }
  jsCtx* js = NULL;
  s = natsConnection_JetStream(&js, nc, &jo);
  char subject[256];
  snprintf(subject, sizeof subject, "%s.x", stream);
  jsErrCode jerr = 0;
  if (s == NATS_OK) {
    jsStreamConfig sc;
    jsStreamConfig_Init(&sc);
    sc.Name = stream;
    const char* subjects[1] = {subject};
    sc.Subjects = subjects;
    sc.SubjectsLen = 1;
    sc.Storage = js_FileStorage;
    jsStreamInfo* si = NULL;
    s = js_AddStream(&si, js, &sc, NULL, &jerr);
    if (s == NATS_OK) jsStreamInfo_Destroy(si);
    else if (jerr == JSStreamNameExistErr) s = NATS_OK;
  }
  if (s != NATS_OK) {
    fprintf(stderr, "nats_bench: JetStream / stream %s: %s (%d)\n", stream, natsStatus_GetText(s), (int)jerr);
    return 1;
  }

  g.count = n;
  g.sent_ns = calloc((size_t)n, sizeof(int64_t));
  g.lat_ns = calloc((size_t)n, sizeof(int64_t));
  char* body = malloc((size_t)size);
  if (g.sent_ns == NULL || g.lat_ns == NULL || body == NULL) {
    fprintf(stderr, "nats_bench: out of memory for %ld messages\n", n);
    return 1;
  }
  for (long i = 0; i < size; ++i) body[i] = (char)('!' + (i * 7919) % 94);

  const int64_t t0 = now_ns();
  for (int64_t i = 0; i < n; ++i) {
    memcpy(body, &i, sizeof i); /* the message's index, for the ack handler */
    const int64_t ts = now_ns();
    pthread_mutex_lock(&g.mu);
    g.sent_ns[i] = ts;
    pthread_mutex_unlock(&g.mu);
    if (async_mode) {
      s = js_PublishAsync(js, subject, body, (int)size, NULL);
      if (s != NATS_OK) {
        pthread_mutex_lock(&g.mu);
        g.errors++;
        pthread_mutex_unlock(&g.mu);
      }
    } else {
      jsPubAck* pa = NULL;
      s = js_Publish(&pa, js, subject, body, (int)size, NULL, &jerr);
      const int64_t t = now_ns();
      pthread_mutex_lock(&g.mu);
      if (s == NATS_OK) g.lat_ns[g.acked++] = t - ts;
      else g.errors++;
      pthread_mutex_unlock(&g.mu);
      jsPubAck_Destroy(pa);
    }
  }
  if (async_mode) {
    jsPubOptions po;
    jsPubOptions_Init(&po);
    po.MaxWait = 30000;
    s = js_PublishAsyncComplete(js, &po);
    if (s != NATS_OK) fprintf(stderr, "nats_bench: waiting for the last acks: %s\n", natsStatus_GetText(s));
  }
  const double secs = (double)(now_ns() - t0) / 1e9;
  pthread_mutex_lock(&g.mu);
  const int64_t acked = g.acked, errors = g.errors;
  qsort(g.lat_ns, (size_t)acked, sizeof(int64_t), cmp_i64);
  printf("produce msgs=%lld errors=%lld seconds=%.3f msgs_per_s=%.1f mb_per_s=%.3f p50_ms=%.3f p99_ms=%.3f "
         "p999_ms=%.3f max_ms=%.3f\n",
         (long long)acked, (long long)(errors + (n - acked - errors > 0 ? n - acked - errors : 0)), secs,
         secs > 0 ? acked / secs : 0.0, secs > 0 ? acked * (double)size / secs / 1e6 : 0.0, pct_ms(g.lat_ns, acked, 50),
         pct_ms(g.lat_ns, acked, 99), pct_ms(g.lat_ns, acked, 99.9), pct_ms(g.lat_ns, acked, 100));
  pthread_mutex_unlock(&g.mu);
  fflush(stdout);
  int rc = acked == n ? 0 : 1;
  if (do_consume && consume(js, subject, stream, n, size) != 0) rc = 1;
  jsCtx_Destroy(js);
  natsConnection_Destroy(nc);
  free(body);
  free(g.sent_ns);
  free(g.lat_ns);
  return rc;
}
