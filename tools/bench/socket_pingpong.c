/* socket_pingpong: the physical reference for MPI over TCP on one host.
 *
 * Two processes (parent and a forked child) ping-pong over one TCP loopback
 * connection with TCP_NODELAY and plain blocking send/recv loops: what any
 * TCP-based MPI pays at least, with no envelope, matching or progress engine.
 * Same sizes, measuring scheme and CSV as pingpong.c (impl label "socket").
 *
 *   cc -O2 socket_pingpong.c -o socket_pingpong && ./socket_pingpong
 *
 * A size-0 message is sent as a 1-byte token (TCP cannot carry an empty
 * message); kernel socket buffers keep their defaults (autotuning).
 *
 * With --spin both sides poll with MSG_DONTWAIT instead of sleeping in the
 * kernel (impl label "socket-spin"): the bound for a busy-polling TCP device,
 * which on virtual machines with costly wake-ups is far below the blocking one.
 */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_common.h"

struct sp_ctx {
    int fd;
    unsigned char *sbuf;
    unsigned char *rbuf;
};

/* MSG_DONTWAIT and retry instead of sleeping in the kernel (--spin). */
static int sp_flags = 0;

static void sp_die(const char *what)
{
    fprintf(stderr, "socket_pingpong: %s: %s\n", what, strerror(errno));
    exit(2);
}

static void sp_send_all(int fd, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL | sp_flags);
        if (k < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            sp_die("send");
        }
        p += k;
        n -= (size_t)k;
    }
}

/* Returns 0 on success, -1 if the peer closed the connection first. */
static int sp_recv_all(int fd, void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t k = recv(fd, p, n, sp_flags);
        if (k < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
                continue;
            sp_die("recv");
        }
        if (k == 0)
            return -1;
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static size_t sp_wire_size(long size)
{
    return size > 0 ? (size_t)size : 1u;
}

static double sp_run(void *vctx, long size, long reps)
{
    struct sp_ctx *c = vctx;
    int64_t ctl[2] = {size, reps};
    size_t n = sp_wire_size(size);
    memset(c->rbuf, 0, n);
    sp_send_all(c->fd, ctl, sizeof ctl);

    double t0 = bench_now();
    for (long r = 0; r < reps; r++) {
        sp_send_all(c->fd, c->sbuf, n);
        if (sp_recv_all(c->fd, c->rbuf, n) != 0) {
            fprintf(stderr, "socket_pingpong: the echo process went away\n");
            exit(2);
        }
    }
    double t1 = bench_now();

    if (reps > 0 && memcmp(c->sbuf, c->rbuf, n) != 0) {
        fprintf(stderr, "socket_pingpong: echoed data of size %ld is wrong\n", size);
        exit(3);
    }
    return t1 - t0;
}

static void sp_echo(int fd, unsigned char *buf)
{
    for (;;) {
        int64_t ctl[2];
        if (sp_recv_all(fd, ctl, sizeof ctl) != 0 || ctl[1] < 0)
            return;
        size_t n = sp_wire_size((long)ctl[0]);
        for (int64_t r = 0; r < ctl[1]; r++) {
            if (sp_recv_all(fd, buf, n) != 0)
                return;
            sp_send_all(fd, buf, n);
        }
    }
}

static void sp_nodelay(int fd)
{
    int one = 1;
    if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) != 0)
        sp_die("setsockopt(TCP_NODELAY)");
}

int main(int argc, char **argv)
{
    /* --spin is ours; everything else goes to the common parser. */
    const char *default_impl = "socket";
    int nargs = 0;
    for (int i = 0; i < argc; i++) {
        if (i > 0 && strcmp(argv[i], "--spin") == 0) {
            sp_flags = MSG_DONTWAIT;
            default_impl = "socket-spin";
        } else {
            argv[nargs++] = argv[i];
        }
    }
    argc = nargs;

    struct bench_options opt;
    int prc = bench_parse_args(argc, argv, &opt, default_impl, "pingpong",
                               "TCP loopback ping-pong between two processes (the reference)\n"
                               "  --spin            poll with MSG_DONTWAIT instead of blocking (impl socket-spin)",
                               1);
    if (prc != 0)
        return prc < 0 ? 1 : 0;

    size_t bytes = sp_wire_size(bench_max_size(&opt));
    unsigned char *sbuf = malloc(bytes);
    unsigned char *rbuf = malloc(bytes);
    if (sbuf == NULL || rbuf == NULL) {
        fprintf(stderr, "socket_pingpong: cannot allocate 2 x %zu bytes\n", bytes);
        return 1;
    }
    for (size_t i = 0; i < bytes; i++)
        sbuf[i] = (unsigned char)(i % 251 + 1);
    memset(rbuf, 0, bytes);

    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (lfd < 0)
        sp_die("socket");
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t alen = sizeof addr;
    if (bind(lfd, (struct sockaddr *)&addr, sizeof addr) != 0)
        sp_die("bind(127.0.0.1)");
    if (listen(lfd, 1) != 0)
        sp_die("listen");
    if (getsockname(lfd, (struct sockaddr *)&addr, &alen) != 0)
        sp_die("getsockname");

    fflush(stdout);
    pid_t child = fork();
    if (child < 0)
        sp_die("fork");
    if (child == 0) {
        close(lfd);
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd < 0)
            sp_die("socket");
        if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0)
            sp_die("connect");
        sp_nodelay(fd);
        sp_echo(fd, rbuf);
        close(fd);
        _exit(0);
    }

    int fd = accept(lfd, NULL, NULL);
    if (fd < 0)
        sp_die("accept");
    close(lfd);
    sp_nodelay(fd);

    struct sp_ctx ctx = {fd, sbuf, rbuf};
    bench_print_header(&opt);
    for (int i = 0; i < opt.nsizes; i++)
        bench_measure(&opt, opt.sizes[i], 2.0, sp_run, &ctx);
    int64_t stop[2] = {0, -1};
    sp_send_all(fd, stop, sizeof stop);
    close(fd);

    int status = 0;
    if (waitpid(child, &status, 0) < 0)
        sp_die("waitpid");
    free(sbuf);
    free(rbuf);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "socket_pingpong: the echo process failed (status %d)\n", status);
        return 1;
    }
    return 0;
}
