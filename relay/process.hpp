// strata-gatekeeper --relay [--listen ADDR] [--port-range LOW:HIGH] [--wireup ADDR:PORT]
//
// The relay process of a private site (docs/RELAYS.md, "The relay"): its
// gatekeeper starts it with the job's key in the environment and a pipe on
// its standard input. It prints the port it listens on as one line on
// standard output and closes it, then serves until its standard input
// reads EOF (whoever started it is gone) or SIGTERM, SIGINT or SIGHUP,
// and exits 0 after a clean stop. The log goes to standard error.
#pragma once

namespace strata::relay {

// argv as main() has it; "--relay" may be among the arguments. The job key
// is in the environment variable `key_variable` (the wire-up contract's,
// which the layer above names).
int relay_process_main(int argc, char** argv, const char* key_variable);

}  // namespace strata::relay
