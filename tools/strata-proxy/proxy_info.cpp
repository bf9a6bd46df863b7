// strata-proxy-info: what a proxy credential is and how long it lasts.
//
//   strata-proxy-info [-file FILE] [-subject] [-issuer] [-identity] [-type] [-timeleft] [-path]
//   strata-proxy-info [-file FILE] -exists [-valid H:M]
#include "security/proxy.hpp"
#include "security/x509.hpp"

#include "hours_minutes.hpp"

#include <openssl/evp.h>

#include <cstdio>
#include <ctime>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace sec = strata::security;
namespace base = strata::base;

namespace {

constexpr const char* kUsage =
    "usage: strata-proxy-info [-file FILE] [-subject] [-issuer] [-identity] [-type] [-timeleft] [-path]\n"
    "       strata-proxy-info [-file FILE] -exists [-valid H:M]\n"
    "\n"
    "Shows the proxy in FILE (default $X509_USER_PROXY, else /tmp/x509up_u<uid>): all fields, or\n"
    "only those asked for, one per line in the order given (-timeleft in seconds, 0 once expired).\n"
    "-exists prints nothing and exits 0 only if the proxy is there and valid for at least H:M more\n"
    "(default 0:00).\n";

int usage_error(const std::string& text) {
    std::cerr << "strata-proxy-info: " << text << "\n" << kUsage;
    return 2;
}

long seconds_left(X509* cert) {
    int days = 0;
    int secs = 0;
    if (ASN1_TIME_diff(&days, &secs, nullptr, X509_get0_notAfter(cert)) != 1) return 0;
    const long left = static_cast<long>(days) * 86400 + secs;
    return left > 0 ? left : 0;
}

std::string hms(long s) {
    char text[32];
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
    return text;
}

std::string strength(EVP_PKEY* key) {
    const char* name = EVP_PKEY_get0_type_name(key);
    return std::string(name != nullptr ? name : "key") + ", " + std::to_string(EVP_PKEY_get_bits(key)) + " bits";
}

struct Options {
    bool help = false;  // -h: print the usage, nothing else
    fs::path file = sec::proxy_default_path();
    std::vector<std::string> fields;
    bool exists = false;
    long want = 0;
};

// "-valid H:M" in seconds; nullopt when it is not H:M.
std::optional<long> valid_parse(const std::string& text) {
    if (text.find(':') == std::string::npos) return std::nullopt;
    return strata::proxy_tools::hours_minutes_parse(text, std::numeric_limits<int>::max());
}

// The command line; the failure is a usage error.
base::Result<Options> options_parse(const std::vector<std::string>& args) {
    Options o;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-h" || a == "-help" || a == "--help") {
            o.help = true;
            return o;
        } else if (a == "-file") {
            if (i + 1 >= args.size() || args[i + 1].empty()) return base::Error{"-file needs a file"};
            o.file = args[++i];
        } else if (a == "-subject" || a == "-issuer" || a == "-identity" || a == "-type" || a == "-timeleft" ||
                   a == "-path") {
            o.fields.push_back(a.substr(1));
        } else if (a == "-exists") {
            o.exists = true;
        } else if (a == "-valid") {
            if (i + 1 >= args.size()) return base::Error{"-valid needs H:M"};
            const std::optional<long> want = valid_parse(args[++i]);
            if (!want) return base::Error{"-valid needs H:M, not '" + args[i] + "'"};
            o.want = *want;
        } else {
            return base::Error{"unknown option '" + a + "'"};
        }
    }
    if (!o.exists && o.want != 0) return base::Error{"-valid goes with -exists"};
    return o;
}

// Prints the fields asked for, or all of them.
void proxy_show(const sec::ProxyCredential& proxy, const Options& o) {
    X509* cert = proxy.cert.get();
    std::vector<X509*> chain{cert};
    for (const sec::X509Ptr& c : proxy.chain) chain.push_back(c.get());
    X509* identity = sec::chain_identity(chain);
    const long left = seconds_left(cert);
    auto value = [&](const std::string& field) -> std::string {
        if (field == "subject") return sec::name_to_globus(X509_get_subject_name(cert));
        if (field == "issuer") return sec::name_to_globus(X509_get_issuer_name(cert));
        if (field == "identity") return identity ? sec::name_to_globus(X509_get_subject_name(identity)) : "(none)";
        if (field == "type") return sec::proxy_policy_text(sec::proxy_policy(cert));
        if (field == "timeleft") return std::to_string(left);
        return o.file.string();
    };
    if (!o.fields.empty()) {
        for (const std::string& f : o.fields) std::cout << value(f) << "\n";
        return;
    }
    std::cout << "subject  : " << value("subject") << "\n"
              << "issuer   : " << value("issuer") << "\n"
              << "identity : " << value("identity") << "\n"
              << "type     : " << value("type") << "\n"
              << "strength : " << strength(proxy.key.get()) << "\n"
              << "path     : " << o.file.string() << "\n"
              << "timeleft : " << hms(left) << (left == 0 ? "  (EXPIRED)" : "") << "\n";
}

}  // namespace

int main(int argc, char** argv) {
    const base::Result<Options> opts = options_parse(std::vector<std::string>(argv + 1, argv + argc));
    if (!opts) return usage_error(opts.error());
    if (opts->help) {
        std::cout << kUsage;
        return 0;
    }
    base::Result<sec::ProxyCredential> proxy = sec::proxy_load(opts->file);
    if (opts->exists) return proxy.ok() && seconds_left(proxy.value().cert.get()) > opts->want ? 0 : 1;
    if (!proxy.ok()) {
        std::cerr << "strata-proxy-info: " << proxy.error() << "\n";
        return 1;
    }
    proxy_show(*proxy, *opts);
    return 0;
}
