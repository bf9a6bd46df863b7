// strata-gatekeeper's configuration file (YAML). Relative paths are taken
// from the configuration file's directory. Unknown keys are errors.
//
//   listen: 0.0.0.0              # address to listen on (default: every interface)
//   port: 2119                   # default 2119; 0: any free port (see --port-file)
//   ca_dir: certificates         # trusted CAs (X509_CERT_DIR layout), required
//   cert: hostcert.pem           # the host certificate, required
//   key: hostkey.pem             # its private key, required
//   gridmap: grid-mapfile        # who may run as whom, required
//   adapters: [fork]             # scheduler adapters offered (fork, slurm); default [fork]
//   scratch: /var/tmp/strata     # per-job directories; default $TMPDIR or /tmp
//   state_dir: /var/lib/strata   # records of running subjobs (root-only); default: state/ beside this file
//   environment:                 # added to every process's login environment
//     PATH: /opt/site/bin:/usr/local/bin:/usr/bin:/bin
//   limits:
//     max_jobs: 64               # subjobs running at once
//     max_jobs_per_user: 64      # of those, for one grid identity (subject DN)
//     max_request_bytes: 1048576 # largest Submit accepted
//     handshake_timeout: 10      # seconds for TLS and the Submit to arrive
//     max_stage_bytes: 1073741824  # largest total of files staged with one subjob
#pragma once

#include "base/result.hpp"

#include <string>
#include <utility>
#include <vector>

namespace strata::gatekeeper {

// PATH of a login of the mapped account, as login(1)'s default for users.
inline constexpr const char* kLoginPath = "/usr/local/bin:/usr/bin:/bin";

struct Config {
    std::string listen;  // empty: every interface
    int port = 2119;
    std::string ca_dir;
    std::string cert;
    std::string key;
    std::string gridmap;
    std::vector<std::string> adapters{"fork"};
    std::string scratch;
    std::string state_dir;
    // What a site adds to the environment of every process, after the login's
    // (HOME, USER, LOGNAME, SHELL, PATH=kLoginPath) and before the job's.
    std::vector<std::pair<std::string, std::string>> environment;
    int max_jobs = 64;
    int max_jobs_per_user = 0;  // 0: max_jobs
    int max_request_bytes = 1 << 20;
    int handshake_timeout_s = 10;
    long long max_stage_bytes = 1LL << 30;

    bool offers(const std::string& adapter) const;

    // `path` names the file in messages ("PATH:LINE:COLUMN: what is wrong";
    // a required setting missing, "PATH: what") and anchors relative paths.
    static base::Result<Config> parse(const std::string& text, const std::string& path);
    static base::Result<Config> load(const std::string& path);
    // A user-level gatekeeper's, started over ssh (--stdio): both adapters,
    // the default scratch directory and limits, nothing of TLS.
    static Config for_login();
};

}  // namespace strata::gatekeeper
