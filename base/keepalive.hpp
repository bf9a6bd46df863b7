// Noticing a silent peer on the job's control connections (mpirun to each
// rank, mpirun to each gatekeeper, both ends).
//
// A network partition sends nothing: without help a connection on which
// nobody is writing stays "established" for ever. Every control connection
// therefore has TCP keepalive on (a probe after STRATA_PEER_TIMEOUT_S / 3
// idle seconds, then every STRATA_PEER_TIMEOUT_S / 6 seconds, four tries)
// and TCP_USER_TIMEOUT at STRATA_PEER_TIMEOUT_S (data left unacknowledged
// that long fails the connection). Either way the kernel reports the
// connection broken within about STRATA_PEER_TIMEOUT_S seconds (default 30),
// and each side ends what depends on it. A peer whose kernel still answers
// (a hung process) is not "silent" here: its job ends by its own rules.
#pragma once

namespace strata::base {

// The setting's name, for whoever passes it on (a gatekeeper to its relay).
const char* peer_timeout_knob_name();

// The setting in seconds (at least 3).
int peer_timeout_s();

// Sets the options above on the TCP socket `fd`; false with errno set.
bool socket_keepalive(int fd);

}  // namespace strata::base
