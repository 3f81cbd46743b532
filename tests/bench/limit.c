/* The one-send limit for tests/bench/phones.py --mode limit: a minimal epoll server
 * that does nothing but what the box's fanout must at least do, one non-blocking
 * send() of the same ~500 B message to every phone per event.
 *
 *   limit PORT     listens on 127.0.0.1:PORT (0: any), prints the port, then:
 *   stdin lines    "SEQ" -> one SSE message with id SEQ sent to every phone
 *
 * Each phone gets an HTTP/1.1 200 head and a first message (id 0) when it connects,
 * as the box's state. Built by the bench with the system's cc. */
#define _GNU_SOURCE
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_PHONES 65536
static int phones[MAX_PHONES];
static int count;

static int message(char *buf, size_t size, long seq) {
    /* a chunk of ~500 B, as the box's delta (514 B per event with its framing) */
    char body[600];
    int n = snprintf(body, sizeof body,
                     "id: %ld.%ld.limit\nevent: delta\ndata: [{\"op\":\"replace\",\"path\":"
                     "\"/box/seq\",\"value\":%ld}",
                     seq, seq, seq);
    while (n < 480) body[n++] = ' ';
    n += snprintf(body + n, sizeof body - n, "]\n\n");
    return snprintf(buf, size, "%x\r\n%s\r\n", n, body);
}

static void to_all(const char *data, int len) {
    for (int i = 0; i < count; i++) {
        if (send(phones[i], data, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
            close(phones[i]);
            phones[i--] = phones[--count];
        }
    }
}

int main(int argc, char **argv) {
    int lst = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), one = 1;
    setsockopt(lst, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                               .sin_port = htons(argc > 1 ? atoi(argv[1]) : 0)};
    if (bind(lst, (struct sockaddr *)&addr, sizeof addr) || listen(lst, 4096)) return 1;
    socklen_t len = sizeof addr;
    getsockname(lst, (struct sockaddr *)&addr, &len);
    printf("%d\n", ntohs(addr.sin_port));
    fflush(stdout);
    int ep = epoll_create1(0);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = lst};
    epoll_ctl(ep, EPOLL_CTL_ADD, lst, &ev);
    ev.data.fd = 0;
    epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev);
    static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                               "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n";
    char buf[1024], line[4096];
    size_t have = 0;
    for (;;) {
        struct epoll_event got[16];
        int n = epoll_wait(ep, got, 16, -1);
        for (int k = 0; k < n; k++) {
            if (got[k].data.fd == lst) {
                int fd;
                while ((fd = accept4(lst, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    if (count == MAX_PHONES) { close(fd); continue; }
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                    int m = message(buf, sizeof buf, 0);
                    send(fd, head, sizeof head - 1, MSG_NOSIGNAL);
                    send(fd, buf, m, MSG_NOSIGNAL);
                    phones[count++] = fd;
                }
                continue;
            }
            ssize_t r = read(0, line + have, sizeof line - 1 - have);
            if (r <= 0) return 0;
            have += r;
            char *start = line, *nl;
            while ((nl = memchr(start, '\n', line + have - start))) {
                *nl = 0;
                int m = message(buf, sizeof buf, atol(start));
                to_all(buf, m);
                start = nl + 1;
            }
            have -= start - line;
            memmove(line, start, have);
        }
    }
}
