/*
 * A native stand-in for the kubelet's gRPC client, for bench/device-plugin.bench.ts: one HTTP/2 connection on a
 * unix socket (nghttp2), one unary call at a time, as the kubelet calls Allocate. Compiled code with no garbage
 * collector, so the latency it measures is the plugin's side of the call plus the socket, not a JavaScript client's.
 *
 *   h2-unary-client SOCKET PATH REQUESTS_FILE CALLS WARMUP
 *
 * REQUESTS_FILE holds gRPC-framed requests back to back (each: 1 flag byte, 4-byte big-endian length, message);
 * call i sends request i modulo their count. Prints, on stdout, one line per timed call: the latency in
 * microseconds; then one line per distinct response body: "body COUNT HEX" so that the caller can decode and check
 * every answer. Exits 1 with a message on stderr when a call fails (transport error or grpc-status other than 0).
 *
 * Build: cc -O2 -o h2-unary-client h2-unary-client.c -lnghttp2   (Debian: libnghttp2-dev)
 */
#include <errno.h>
#include <nghttp2/nghttp2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  const uint8_t *data;
  size_t len;
  size_t sent;
} request_t;

typedef struct {
  int fd;
  int32_t stream;
  int done;
  int grpc_status; /* -1 until seen */
  uint8_t *body;
  size_t body_len;
  size_t body_cap;
} call_t;

typedef struct {
  uint8_t *body;
  size_t len;
  long count;
} distinct_t;

static void die(const char *what, const char *detail) {
  fprintf(stderr, "h2-unary-client: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
  exit(1);
}

static ssize_t send_cb(nghttp2_session *s, const uint8_t *data, size_t len, int flags, void *user) {
  (void)s;
  (void)flags;
  call_t *c = user;
  size_t off = 0;
  while (off < len) {
    ssize_t n = write(c->fd, data + off, len - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      return NGHTTP2_ERR_CALLBACK_FAILURE;
    }
    off += (size_t)n;
  }
  return (ssize_t)len;
}

static int header_cb(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name, size_t namelen,
                     const uint8_t *value, size_t valuelen, uint8_t flags, void *user) {
  (void)s;
  (void)flags;
  call_t *c = user;
  if (f->hd.stream_id == c->stream && namelen == 11 && memcmp(name, "grpc-status", 11) == 0) {
    char buf[16] = {0};
    memcpy(buf, value, valuelen < 15 ? valuelen : 15);
    c->grpc_status = atoi(buf);
  }
  return 0;
}

static int data_cb(nghttp2_session *s, uint8_t flags, int32_t stream, const uint8_t *data, size_t len, void *user) {
  (void)s;
  (void)flags;
  call_t *c = user;
  if (stream != c->stream) return 0;
  if (c->body_len + len > c->body_cap) {
    c->body_cap = (c->body_len + len) * 2;
    c->body = realloc(c->body, c->body_cap);
    if (!c->body) die("out of memory", NULL);
  }
  memcpy(c->body + c->body_len, data, len);
  c->body_len += len;
  return 0;
}

static int close_cb(nghttp2_session *s, int32_t stream, uint32_t error, void *user) {
  (void)s;
  call_t *c = user;
  if (stream == c->stream) {
    c->done = 1;
    if (error != 0) c->grpc_status = -2;
  }
  return 0;
}

static ssize_t read_request(nghttp2_session *s, int32_t stream, uint8_t *buf, size_t len, uint32_t *flags,
                                  nghttp2_data_source *src, void *user) {
  (void)s;
  (void)stream;
  (void)user;
  request_t *r = src->ptr;
  size_t n = r->len - r->sent;
  if (n > len) n = len;
  memcpy(buf, r->data + r->sent, n);
  r->sent += n;
  if (r->sent == r->len) *flags |= NGHTTP2_DATA_FLAG_EOF;
  return (ssize_t)n;
}

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

#define HDR(n, v) {(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v), NGHTTP2_NV_FLAG_NONE}

int main(int argc, char **argv) {
  if (argc != 6) die("usage: h2-unary-client SOCKET PATH REQUESTS_FILE CALLS WARMUP", NULL);
  const char *sock = argv[1], *path = argv[2];
  long calls = atol(argv[4]), warmup = atol(argv[5]);

  FILE *rf = fopen(argv[3], "rb");
  if (!rf) die("cannot open the requests file", argv[3]);
  static uint8_t file[1 << 20];
  size_t file_len = fread(file, 1, sizeof file, rf);
  fclose(rf);
  request_t reqs[4096];
  size_t nreq = 0;
  for (size_t off = 0; off + 5 <= file_len && nreq < 4096;) {
    size_t mlen = ((size_t)file[off + 1] << 24) | ((size_t)file[off + 2] << 16) | ((size_t)file[off + 3] << 8) |
                  (size_t)file[off + 4];
    if (off + 5 + mlen > file_len) die("the requests file ends inside a message", NULL);
    reqs[nreq++] = (request_t){file + off, 5 + mlen, 0};
    off += 5 + mlen;
  }
  if (nreq == 0) die("the requests file holds no gRPC-framed request", NULL);

  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un addr = {.sun_family = AF_UNIX};
  strncpy(addr.sun_path, sock, sizeof addr.sun_path - 1);
  if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) die("cannot connect", strerror(errno));

  call_t call = {.fd = fd};
  nghttp2_session_callbacks *cbs;
  nghttp2_session_callbacks_new(&cbs);
  nghttp2_session_callbacks_set_send_callback(cbs, send_cb);
  nghttp2_session_callbacks_set_on_header_callback(cbs, header_cb);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs, data_cb);
  nghttp2_session_callbacks_set_on_stream_close_callback(cbs, close_cb);
  nghttp2_session *session;
  if (nghttp2_session_client_new(&session, cbs, &call) != 0) die("nghttp2 session", NULL);
  nghttp2_session_callbacks_del(cbs);
  nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, NULL, 0);

  nghttp2_nv headers[] = {
      HDR(":method", "POST"),       HDR(":scheme", "http"), HDR(":path", path), HDR(":authority", "localhost"),
      HDR("content-type", "application/grpc"), HDR("te", "trailers"),
  };
  double *lat = malloc(sizeof(double) * (size_t)(calls > 0 ? calls : 1));
  distinct_t distinct[64];
  int ndistinct = 0;
  uint8_t in[65536];

  for (long i = 0; i < warmup + calls; i++) {
    request_t *r = &reqs[i % (long)nreq];
    r->sent = 0;
    call.done = 0;
    call.grpc_status = -1;
    call.body_len = 0;
    nghttp2_data_provider prd = {.source = {.ptr = r}, .read_callback = read_request};
    double t0 = now_us();
    call.stream = nghttp2_submit_request(session, NULL, headers, sizeof headers / sizeof headers[0], &prd, NULL);
    if (call.stream < 0) die("submit", nghttp2_strerror(call.stream));
    while (!call.done) {
      if (nghttp2_session_send(session) != 0) die("send failed", NULL);
      if (call.done) break;
      ssize_t n = read(fd, in, sizeof in);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) die("the server closed the connection", NULL);
      if (nghttp2_session_mem_recv(session, in, (size_t)n) < 0) die("bad HTTP/2 from the server", NULL);
    }
    double us = now_us() - t0;
    if (call.grpc_status != 0) {
      char detail[64];
      snprintf(detail, sizeof detail, "call %ld: grpc-status %d", i, call.grpc_status);
      die("a call failed", detail);
    }
    if (i < warmup) continue;
    lat[i - warmup] = us;
    int k = 0;
    while (k < ndistinct && !(distinct[k].len == call.body_len && memcmp(distinct[k].body, call.body, call.body_len) == 0))
      k++;
    if (k == ndistinct) {
      if (ndistinct == 64) die("more than 64 distinct responses", NULL);
      distinct[k].body = malloc(call.body_len ? call.body_len : 1);
      memcpy(distinct[k].body, call.body, call.body_len);
      distinct[k].len = call.body_len;
      distinct[k].count = 0;
      ndistinct++;
    }
    distinct[k].count++;
  }
  nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR);
  nghttp2_session_send(session);
  close(fd);

  for (long i = 0; i < calls; i++) printf("%.1f\n", lat[i]);
  for (int k = 0; k < ndistinct; k++) {
    printf("body %ld ", distinct[k].count);
    for (size_t b = 0; b < distinct[k].len; b++) printf("%02x", distinct[k].body[b]);
    printf("\n");
  }
  return 0;
}
