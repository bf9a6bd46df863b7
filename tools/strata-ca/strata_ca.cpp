// strata-ca: a small certificate authority for setting up a grid.
//
//   strata-ca create-ca [--dir DIR] [--certdir DIR] [--subject DN] [--days N] [--force]
//   strata-ca host --name HOST [--out DIR] [--ca DIR] [--days N] [--force]
//   strata-ca user --name NAME [--out DIR] [--ca DIR] [--ou OU] [--days N] [--force]
//   strata-ca show FILE
//   strata-ca revoke FILE [--ca DIR] [--certdir DIR] [--days N]
//
// The work is done by security/cert_authority.hpp; this file reads options,
// picks the default paths and prints what happened.
#include "base/numbers.hpp"
#include "security/cert_authority.hpp"
#include "security/x509.hpp"

#include <openssl/asn1.h>
#include <openssl/x509v3.h>

#include <pwd.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace sec = strata::security;
namespace base = strata::base;

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

constexpr const char* kUsage =
    "usage: strata-ca COMMAND [OPTIONS]\n"
    "\n"
    "  create-ca [--dir DIR] [--certdir DIR] [--subject DN] [--days N] [--force]\n"
    "      a CA key (EC P-256) and self-signed certificate in DIR (default ~/.strata/ca),\n"
    "      trusted by installing it into --certdir (default $X509_CERT_DIR, else\n"
    "      ~/.strata/certificates) as <hash>.0; DN defaults to \"/O=Strata Grid/CN=Strata CA\",\n"
    "      N to 3650 days\n"
    "  host --name HOST [--out DIR] [--ca DIR] [--days N] [--force]\n"
    "      hostcert.pem and hostkey.pem for HOST (a DNS name or IP address) in DIR\n"
    "      (default ~/.strata/hosts/HOST), signed by the CA in --ca (default ~/.strata/ca)\n"
    "  user --name NAME [--out DIR] [--ca DIR] [--ou OU] [--days N] [--force]\n"
    "      usercert.pem and userkey.pem in DIR (default ~/.strata), subject\n"
    "      <CA subject without CN>/OU=OU/CN=NAME (OU defaults to Users); prints the\n"
    "      grid-mapfile line to add\n"
    "  show FILE\n"
    "      subject, issuer and validity of a PEM certificate, and its grid-mapfile DN\n"
    "  revoke FILE [--ca DIR] [--certdir DIR] [--days N]\n"
    "      adds the certificate in FILE to the revocation list of the CA in --ca (DIR/crl.pem,\n"
    "      next update in N days, default 30) and installs the list in --certdir as\n"
    "      <hash>.r0, where TLS peers that trust the CA find it\n"
    "\n"
    "Certificates are valid for N days (default 365 for hosts and users). Existing files\n"
    "are never replaced without --force.\n";

int usage_error(const std::string& text) {
    std::cerr << "strata-ca: " << text << "\n(run `strata-ca --help` for the usage)\n";
    return kExitUsage;
}

int failure(const std::string& text) {
    std::cerr << "strata-ca: " << text << "\n";
    return kExitFailure;
}

std::optional<fs::path> home_dir() {
    if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home);
    if (const passwd* pw = getpwuid(geteuid()); pw && pw->pw_dir) return fs::path(pw->pw_dir);
    return std::nullopt;
}

std::string local_user() {
    if (const passwd* pw = getpwuid(geteuid()); pw && pw->pw_name) return pw->pw_name;
    if (const char* user = std::getenv("USER"); user && *user) return user;
    return "LOCAL_USER";
}

// Options of one command: "--key value" or "--key=value"; flags take no value.
struct Options {
    std::map<std::string, std::string> values;
    std::set<std::string> flags;
    std::vector<std::string> positional;
};

base::Result<Options> options_parse(const std::vector<std::string>& args, const std::vector<std::string>& valued,
                                    const std::vector<std::string>& flags) {
    Options opts;
    auto known = [](const std::vector<std::string>& list, const std::string& k) {
        for (const std::string& s : list) {
            if (s == k) return true;
        }
        return false;
    };
    for (size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.rfind("--", 0) != 0 || a == "--") {
            opts.positional.push_back(a);
            continue;
        }
        std::string key = a.substr(2);
        std::optional<std::string> value;
        if (size_t eq = key.find('='); eq != std::string::npos) {
            value = key.substr(eq + 1);
            key.resize(eq);
        }
        if (known(flags, key)) {
            if (value) return base::Error{"--" + key + " takes no value"};
            opts.flags.insert(key);
        } else if (known(valued, key)) {
            if (!value) {
                if (i + 1 >= args.size()) return base::Error{"--" + key + " needs a value"};
                value = args[++i];
            }
            opts.values[key] = *value;
        } else {
            return base::Error{"unknown option --" + key};
        }
    }
    return opts;
}

base::Result<std::chrono::days> days_parse(const Options& opts, int fallback) {
    auto it = opts.values.find("days");
    if (it == opts.values.end()) return std::chrono::days{fallback};
    const std::string& text = it->second;
    const base::ParsedInt<int> n = base::parse_int<int>(text, 1, 36500);
    if (!n) return base::Error{"--days must be a whole number of days from 1 to 36500, not \"" + text + "\""};
    return std::chrono::days{*n};
}

fs::path path_or(const Options& opts, const std::string& key, const fs::path& fallback) {
    auto it = opts.values.find(key);
    return it == opts.values.end() ? fallback : fs::path(it->second);
}

int command_create_ca(const std::vector<std::string>& args, const fs::path& home) {
    auto opts = options_parse(args, {"dir", "certdir", "subject", "days"}, {"force"});
    if (!opts) return usage_error(opts.error());
    if (!opts->positional.empty()) return usage_error("create-ca takes no argument \"" + opts->positional[0] + "\"");
    auto days = days_parse(*opts, 3650);
    if (!days) return usage_error(days.error());

    sec::CaCreateOptions ca;
    ca.dir = path_or(*opts, "dir", home / ".strata" / "ca");
    const char* env_dir = std::getenv("X509_CERT_DIR");
    ca.cert_dir = path_or(*opts, "certdir",
                          env_dir && *env_dir ? fs::path(env_dir) : home / ".strata" / "certificates");
    if (auto it = opts->values.find("subject"); it != opts->values.end()) ca.subject = it->second;
    ca.lifetime = *days;
    ca.overwrite = opts->flags.contains("force");

    base::Result<sec::CaCreated> made = sec::ca_create(ca);
    if (!made.ok()) return failure(made.error());
    std::cout << "CA certificate: " << made.value().cert_file.string() << "\n"
              << "CA key:         " << made.value().key_file.string() << " (mode 0600, keep it secret)\n"
              << "subject:        " << made.value().subject << "\n"
              << "trusted as:     " << made.value().installed.string() << "\n";
    if (ca.cert_dir != fs::path(env_dir ? env_dir : "")) {
        std::cout << "Programs find trusted CAs through X509_CERT_DIR: export X509_CERT_DIR="
                  << ca.cert_dir.string() << "\n";
    }
    return 0;
}

int command_issue(sec::CertKind kind, const std::vector<std::string>& args, const fs::path& home) {
    bool host = kind == sec::CertKind::host;
    std::vector<std::string> valued{"name", "out", "ca", "days"};
    if (!host) valued.push_back("ou");
    auto opts = options_parse(args, valued, {"force"});
    if (!opts) return usage_error(opts.error());
    const char* command = host ? "host" : "user";
    if (!opts->positional.empty()) {
        return usage_error(std::string(command) + " takes no argument \"" + opts->positional[0] +
                           "\"; give the name with --name");
    }
    auto name = opts->values.find("name");
    if (name == opts->values.end() || name->second.empty()) {
        return usage_error(std::string(command) + " needs --name, such as " +
                           (host ? "--name node1.example.org" : "--name \"Jane Doe\""));
    }
    auto days = days_parse(*opts, 365);
    if (!days) return usage_error(days.error());

    sec::IssueOptions issue;
    issue.kind = kind;
    issue.name = name->second;
    if (auto it = opts->values.find("ou"); it != opts->values.end()) issue.ou = it->second;
    issue.out_dir = path_or(*opts, "out", host ? home / ".strata" / "hosts" / issue.name : home / ".strata");
    issue.lifetime = *days;
    issue.overwrite = opts->flags.contains("force");

    base::Result<sec::CertAuthority> ca = sec::ca_load(path_or(*opts, "ca", home / ".strata" / "ca"));
    if (!ca.ok()) return failure(ca.error());
    base::Result<sec::Issued> made = sec::cert_issue(ca.value(), issue);
    if (!made.ok()) return failure(made.error());
    std::cout << "certificate: " << made.value().cert_file.string() << "\n"
              << "key:         " << made.value().key_file.string() << " (mode 0600)\n"
              << "subject:     " << made.value().subject << "\n";
    if (!host) {
        // Root never runs jobs (a gatekeeper refuses such a line): then a placeholder to fill in.
        const bool root = ::geteuid() == 0;
        std::cout << "Add this line to the grid-mapfile of each site that should accept you:\n"
                  << sec::gridmap_quote(made.value().subject) << " " << (root ? "ACCOUNT" : local_user()) << "\n";
        if (root)
            std::cout << "(with ACCOUNT your account at that site: a line mapping to root is refused, since root "
                         "never runs jobs)\n";
    }
    return 0;
}

int command_show(const std::vector<std::string>& args) {
    if (args.size() != 1 || args[0].rfind("--", 0) == 0) {
        return usage_error("show takes one certificate file: strata-ca show FILE");
    }
    base::Result<sec::X509Ptr> cert = sec::cert_load_pem(args[0]);
    if (!cert.ok()) return failure(cert.error());
    X509* c = cert.value().get();
    std::string subject = sec::name_to_globus(X509_get_subject_name(c));
    std::cout << "subject:     " << subject << "\n"
              << "issuer:      " << sec::name_to_globus(X509_get_issuer_name(c)) << "\n"
              << "not before:  " << sec::asn1_time_text(X509_get0_notBefore(c)) << "\n"
              << "not after:   " << sec::asn1_time_text(X509_get0_notAfter(c));
    if (X509_cmp_current_time(X509_get0_notAfter(c)) < 0) std::cout << "  (EXPIRED)";
    std::cout << "\n";
    if (X509_check_ca(c) != 0) std::cout << "CA:          yes\n";
    std::cout << "grid-mapfile DN: " << sec::gridmap_quote(subject) << "\n";
    return 0;
}

int command_revoke(const std::vector<std::string>& args, const fs::path& home) {
    auto opts = options_parse(args, {"ca", "certdir", "days"}, {});
    if (!opts) return usage_error(opts.error());
    if (opts->positional.size() != 1)
        return usage_error("revoke takes one certificate file: strata-ca revoke FILE [--ca DIR] [--certdir DIR]");
    auto days = days_parse(*opts, 30);
    if (!days) return usage_error(days.error());
    sec::RevokeOptions revoke;
    revoke.ca_dir = path_or(*opts, "ca", home / ".strata" / "ca");
    const char* env_dir = std::getenv("X509_CERT_DIR");
    revoke.cert_dir = path_or(*opts, "certdir",
                              env_dir && *env_dir ? fs::path(env_dir) : home / ".strata" / "certificates");
    revoke.cert_file = opts->positional[0];
    revoke.next_update = *days;
    base::Result<sec::CertAuthority> ca = sec::ca_load(revoke.ca_dir);
    if (!ca.ok()) return failure(ca.error());
    base::Result<sec::Revocation> done = sec::cert_revoke(ca.value(), revoke);
    if (!done.ok()) return failure(done.error());
    std::cout << "revoked:      " << done.value().subject << " (serial " << done.value().serial << ")\n"
              << "list:         " << done.value().crl_file.string() << " (" << done.value().revoked_count
              << " revoked, next update in " << revoke.next_update.count() << " days)\n"
              << "installed as: " << done.value().installed.string() << "\n"
              << "Copy it into the trusted-CA directory of every site that trusts this CA.\n";
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty()) return usage_error("no command given");
    std::string command = args[0];
    args.erase(args.begin());
    if (command == "-h" || command == "--help" || command == "help") {
        std::cout << kUsage;
        return 0;
    }
    if (command == "show") return command_show(args);
    std::optional<fs::path> home = home_dir();
    if (!home) return failure("cannot find the home directory; set HOME");
    if (command == "create-ca") return command_create_ca(args, *home);
    if (command == "host") return command_issue(sec::CertKind::host, args, *home);
    if (command == "user") return command_issue(sec::CertKind::user, args, *home);
    if (command == "revoke") return command_revoke(args, *home);
    return usage_error("unknown command \"" + command + "\"; the commands are create-ca, host, user, show, revoke");
}
