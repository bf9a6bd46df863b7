// forge: certificates no honest tool makes, for the security tests.
//
//   forge proxy ISSUER_CERT ISSUER_KEY OUT [--policy impersonation|limited|independent]
//               [--start S] [--end S] [--claim CERT]
//       A proxy file (proxy, its new key, ISSUER_CERT) signed by ISSUER_KEY. --start and
//       --end are its validity in seconds from now (an --end in the past makes it expired).
//       --claim names it as a proxy of CERT's subject although ISSUER_KEY signs it, and
//       puts CERT (public, after all) in the file as its issuer.
#include "security/proxy.hpp"
#include "security/x509.hpp"

#include <openssl/x509.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace sec = strata::security;

namespace {

int die(const std::string& text) {
    std::cerr << "forge: " << text << "\n";
    return 1;
}

int write_file(const std::string& path, const std::string& text) {
    const sec::FileContent f{path, text};
    strata::base::Status s = sec::files_write_atomic({&f, 1}, true);
    return s.ok() ? 0 : die(s.error());
}

int proxy(const std::vector<std::string>& a) {
    if (a.size() < 3) return die("proxy ISSUER_CERT ISSUER_KEY OUT [options]");
    auto cert = sec::cert_load_pem(a[0]);
    auto key = sec::key_load_pem(a[1]);
    if (!cert.ok() || !key.ok()) return die(cert.error() + key.error());
    auto fresh = sec::key_create();
    if (!fresh.ok()) return die(fresh.error());
    sec::ProxyRequest req;
    req.issuer = cert.value().get();
    req.issuer_key = key.value().get();
    req.subject_key = fresh.value().get();
    std::string claim;
    for (std::size_t i = 3; i + 1 < a.size(); i += 2) {
        if (a[i] == "--policy")
            req.policy = a[i + 1] == "limited"       ? sec::ProxyPolicy::limited
                         : a[i + 1] == "independent" ? sec::ProxyPolicy::independent
                                                     : sec::ProxyPolicy::impersonation;
        else if (a[i] == "--start")
            req.start = std::chrono::seconds(std::atol(a[i + 1].c_str()));
        else if (a[i] == "--end")
            req.lifetime = std::chrono::seconds(std::atol(a[i + 1].c_str()));
        else if (a[i] == "--claim")
            claim = a[i + 1];
        else
            return die("unknown option " + a[i]);
    }
    auto made = sec::proxy_create(req);
    if (!made.ok()) return die(made.error());
    if (!claim.empty()) {
        auto victim = sec::cert_load_pem(claim);
        if (!victim.ok()) return die(victim.error());
        X509_NAME* subject = X509_NAME_dup(X509_get_subject_name(victim.value().get()));
        X509_NAME_ENTRY* cn = X509_NAME_get_entry(X509_get_subject_name(made.value().get()),
                                                  X509_NAME_entry_count(X509_get_subject_name(made.value().get())) - 1);
        X509_NAME_add_entry(subject, cn, -1, 0);
        X509_set_subject_name(made.value().get(), subject);
        X509_set_issuer_name(made.value().get(), X509_get_subject_name(victim.value().get()));
        X509_NAME_free(subject);
        if (X509_sign(made.value().get(), key.value().get(), EVP_sha256()) <= 0) return die("cannot re-sign");
    }
    sec::ProxyCredential cred;
    cred.cert = std::move(made.value());
    cred.key = std::move(fresh.value());
    // A claimed proxy comes with the claimed (public) certificate as its issuer.
    cred.chain.push_back(claim.empty() ? std::move(cert.value()) : std::move(sec::cert_load_pem(claim).value()));
    auto pem = sec::proxy_pem(cred);
    return pem.ok() ? write_file(a[2], pem.value()) : die(pem.error());
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args[0] == "proxy") return proxy({args.begin() + 1, args.end()});
    return die("usage: forge proxy ISSUER_CERT ISSUER_KEY OUT [options]");
}
