#include "base/keepalive.hpp"

#include "base/knob.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>

namespace strata::base {

namespace {

const KnobInt kPeerTimeout("STRATA_PEER_TIMEOUT_S", 30,
                           "seconds after which a silent control connection (mpirun to a rank or a gatekeeper, "
                           "either end) counts as lost: TCP keepalive and TCP_USER_TIMEOUT");

bool option_set(int fd, int level, int name, int value) {
    return ::setsockopt(fd, level, name, &value, sizeof value) == 0;
}

}  // namespace

const char* peer_timeout_knob_name() { return kPeerTimeout.name(); }

int peer_timeout_s() { return static_cast<int>(std::clamp<std::int64_t>(kPeerTimeout.get(), 3, 24 * 3600)); }

bool socket_keepalive(int fd) {
    const int t = peer_timeout_s();
    return option_set(fd, SOL_SOCKET, SO_KEEPALIVE, 1) && option_set(fd, IPPROTO_TCP, TCP_KEEPIDLE, t / 3) &&
           option_set(fd, IPPROTO_TCP, TCP_KEEPINTVL, std::max(1, t / 6)) &&
           option_set(fd, IPPROTO_TCP, TCP_KEEPCNT, 4) && option_set(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, t * 1000);
}

}  // namespace strata::base
