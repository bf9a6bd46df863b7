// strata-proxy-init: signs a short-lived proxy credential with the user's key
// (security/proxy.hpp), so that mpirun asks no passphrase for each site.
//
//   strata-proxy-init [-valid H:M | -hours H] [-limited] [-pwstdin] [-cert FILE] [-key FILE] [-out FILE] [-q]
#include "security/proxy.hpp"
#include "security/x509.hpp"

#include "hours_minutes.hpp"

#include <openssl/crypto.h>
#include <openssl/err.h>

#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

namespace fs = std::filesystem;
namespace sec = strata::security;
namespace base = strata::base;

namespace {

constexpr const char* kUsage =
    "usage: strata-proxy-init [-valid H:M | -hours H] [-limited] [-pwstdin] [-cert FILE] [-key FILE]\n"
    "                         [-out FILE] [-q]\n"
    "\n"
    "Signs a proxy certificate for a new key with your certificate's key (asking its pass phrase\n"
    "if it has one) and writes proxy, key and certificate, mode 0600, to FILE (default\n"
    "$X509_USER_PROXY, else /tmp/x509up_u<uid>). mpirun then uses the proxy.\n"
    "\n"
    "  -valid H:M   lifetime (default 12:00); -hours H is the same in whole hours\n"
    "  -limited     a limited proxy (Globus): it authenticates, but gatekeepers start no jobs for it\n"
    "  -pwstdin     read the pass phrase from the first line of standard input, not the terminal\n"
    "  -cert, -key  the credential to sign with (default $X509_USER_CERT, $X509_USER_KEY, else\n"
    "               ~/.strata/usercert.pem and ~/.strata/userkey.pem)\n"
    "  -q           print nothing on success\n";

int usage_error(const std::string& text) {
    std::cerr << "strata-proxy-init: " << text << "\n" << kUsage;
    return 2;
}

int failure(const std::string& text) {
    std::cerr << "strata-proxy-init: " << text << "\n";
    return 1;
}

// "H:M" or whole hours; at most a year, at least a minute.
std::optional<long> lifetime_parse(const std::string& text, bool hours_only) {
    constexpr unsigned kYearHours = 366 * 24;
    if (hours_only && text.find(':') != std::string::npos) return std::nullopt;
    const std::optional<long> seconds = strata::proxy_tools::hours_minutes_parse(text, kYearHours);
    if (!seconds || *seconds < 60 || *seconds > kYearHours * 3600L) return std::nullopt;
    return seconds;
}

struct Passphrase {
    bool from_stdin = false;
    std::string key_file;
    bool asked = false;
};

// Reads a line from the terminal with echo off (or from stdin with -pwstdin).
int passphrase_read(char* buf, int size, int /*rwflag*/, void* user) {
    auto* p = static_cast<Passphrase*>(user);
    std::string line;
    if (p->from_stdin) {
        if (!std::getline(std::cin, line)) return -1;
    } else {
        const int tty = ::open("/dev/tty", O_RDWR | O_CLOEXEC);
        if (tty < 0) {
            std::cerr << "strata-proxy-init: no terminal to ask the pass phrase of " << p->key_file
                      << " on; use -pwstdin\n";
            return -1;
        }
        const std::string prompt = "Enter the pass phrase of " + p->key_file + ": ";
        [[maybe_unused]] ssize_t w = ::write(tty, prompt.data(), prompt.size());
        termios old{};
        const bool term = ::tcgetattr(tty, &old) == 0;
        if (term) {
            termios quiet = old;
            quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
            ::tcsetattr(tty, TCSAFLUSH, &quiet);
        }
        char c = 0;
        while (::read(tty, &c, 1) == 1 && c != '\n') line.push_back(c);
        if (term) ::tcsetattr(tty, TCSAFLUSH, &old);
        w = ::write(tty, "\n", 1);
        ::close(tty);
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    p->asked = true;  // a pass phrase was given: a failure now means it was wrong
    const int n = static_cast<int>(std::min<std::size_t>(line.size(), static_cast<std::size_t>(size)));
    std::memcpy(buf, line.data(), static_cast<std::size_t>(n));
    OPENSSL_cleanse(line.data(), line.size());
    return n;
}

base::Result<sec::PkeyPtr> key_load(const fs::path& file, Passphrase& pass) {
    if (base::Status s = sec::private_file_check(file, "private key"); !s.ok()) return s.failure();
    base::Result<sec::PkeyPtr> key = sec::key_load_pem(file, passphrase_read, &pass);
    if (!key.ok() && pass.asked)
        return base::Error{"wrong pass phrase for " + file.string() + " (nothing was written)"};
    return key;
}

fs::path default_path(const char* var, const char* under_home) {
    if (const char* v = std::getenv(var); v != nullptr && *v != '\0') return v;
    const char* home = std::getenv("HOME");
    return fs::path(home != nullptr ? home : "") / under_home;
}

struct Options {
    bool help = false;  // -h: print the usage, nothing else
    long lifetime = 12 * 3600;
    bool limited = false;
    bool quiet = false;
    Passphrase pass;
    fs::path cert_file = default_path("X509_USER_CERT", ".strata/usercert.pem");
    fs::path key_file = default_path("X509_USER_KEY", ".strata/userkey.pem");
    fs::path out = sec::proxy_default_path();
};

// The option at args[i]; `i` moves past its value.
base::Status option_take(const std::vector<std::string>& args, std::size_t& i, Options& o) {
    const std::string& a = args[i];
    auto value = [&]() -> std::optional<std::string> {
        if (i + 1 >= args.size()) return std::nullopt;
        return args[++i];
    };
    if (a == "-valid" || a == "-hours") {
        const auto v = value();
        const auto s = v ? lifetime_parse(*v, a == "-hours") : std::nullopt;
        if (!s)
            return base::Error{a + " needs " + (a == "-hours" ? "whole hours" : "H:M") +
                               " between one minute and a year" + (v ? ", not '" + *v + "'" : "")};
        o.lifetime = *s;
    } else if (a == "-limited") {
        o.limited = true;
    } else if (a == "-pwstdin") {
        o.pass.from_stdin = true;
    } else if (a == "-q") {
        o.quiet = true;
    } else if (a == "-cert" || a == "-key" || a == "-out") {
        const auto v = value();
        if (!v || v->empty()) return base::Error{a + " needs a file"};
        (a == "-cert" ? o.cert_file : a == "-key" ? o.key_file : o.out) = *v;
    } else {
        return base::Error{"unknown option '" + a + "'"};
    }
    return {};
}

// The command line; the failure is a usage error.
base::Result<Options> options_parse(const std::vector<std::string>& args) {
    Options o;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-h" || a == "-help" || a == "--help") {
            o.help = true;
            return o;
        }
        if (base::Status s = option_take(args, i, o); !s) return s.failure();
    }
    return o;
}

struct Made {
    sec::ProxyCredential cred;
    bool capped = false;  // shortened to the end of the certificate that signed it
};

// Signs a proxy with the user's credential and writes it to `o.out`.
base::Result<Made> proxy_make(Options& o) {
    base::Result<sec::X509Ptr> cert = sec::cert_load_pem(o.cert_file);
    if (!cert.ok()) return cert.failure();
    if (X509_cmp_current_time(X509_get0_notAfter(cert.value().get())) < 0)
        return base::Error{"your certificate " + o.cert_file.string() + " expired on " +
                           sec::asn1_time_text(X509_get0_notAfter(cert.value().get()))};
    o.pass.key_file = o.key_file.string();
    base::Result<sec::PkeyPtr> key = key_load(o.key_file, o.pass);
    if (!key.ok()) return key.failure();
    if (X509_check_private_key(cert.value().get(), key.value().get()) != 1) {
        ERR_clear_error();
        return base::Error{"the private key " + o.key_file.string() + " does not belong to the certificate " +
                           o.cert_file.string()};
    }
    base::Result<sec::PkeyPtr> proxy_key = sec::key_create();
    if (!proxy_key.ok()) return proxy_key.failure();
    sec::ProxyRequest req;
    req.issuer = cert.value().get();
    req.issuer_key = key.value().get();
    req.subject_key = proxy_key.value().get();
    req.lifetime = std::chrono::seconds(o.lifetime);
    req.policy = o.limited ? sec::ProxyPolicy::limited : sec::ProxyPolicy::impersonation;
    Made made;
    base::Result<sec::X509Ptr> proxy = sec::proxy_create(req, &made.capped);
    if (!proxy.ok()) return proxy.failure();

    made.cred.cert = std::move(proxy.value());
    made.cred.key = std::move(proxy_key.value());
    made.cred.chain.push_back(std::move(cert.value()));
    base::Result<std::string> pem = sec::proxy_pem(made.cred);
    if (!pem.ok()) return pem.failure();
    const sec::FileContent file{o.out, pem.value()};
    base::Status written = sec::files_write_atomic({&file, 1}, true);
    OPENSSL_cleanse(pem.value().data(), pem.value().size());
    if (!written.ok()) return written.failure();
    return made;
}

}  // namespace

int main(int argc, char** argv) {
    base::Result<Options> opts = options_parse(std::vector<std::string>(argv + 1, argv + argc));
    if (!opts) return usage_error(opts.error());
    if (opts->help) {
        std::cout << kUsage;
        return 0;
    }
    base::Result<Made> made = proxy_make(*opts);
    if (!made) return failure(made.error());
    if (!opts->quiet) {
        const sec::ProxyCredential& cred = made->cred;
        std::cout << "Your identity: " << sec::name_to_globus(X509_get_subject_name(cred.chain[0].get())) << "\n"
                  << "Your " << (opts->limited ? "limited " : "") << "proxy is valid until "
                  << sec::asn1_time_text(X509_get0_notAfter(cred.cert.get())) << ": " << opts->out.string() << "\n";
        if (made->capped) std::cout << "(shortened: a proxy cannot outlive the certificate that signs it)\n";
    }
    return 0;
}
