#include "security/x509.hpp"

#include "base/file.hpp"

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509v3.h>

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <optional>

namespace strata::security {

namespace fs = std::filesystem;

namespace {

struct BnFree {
    void operator()(BIGNUM* p) const { BN_free(p); }
};
struct X509ExtFree {
    void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
};
using BnPtr = std::unique_ptr<BIGNUM, BnFree>;
using X509ExtPtr = std::unique_ptr<X509_EXTENSION, X509ExtFree>;

// Removes a temporary file unless released.
struct TempFile {
    fs::path path;
    ~TempFile() {
        if (!path.empty()) ::unlink(path.c_str());
    }
};

std::string errno_text(int err) { return std::strerror(err); }


// Serial numbers: 16 random bytes with the top bit cleared (DER INTEGERs are
// signed and RFC 5280 wants them positive) and never zero.

bool file_holds_cert(const fs::path& file, X509* cert) {
    base::Result<X509Ptr> other = cert_load_pem(file);
    return other.ok() && X509_cmp(other.value().get(), cert) == 0;
}

}  // namespace

base::Status extension_add(X509* cert, X509V3_CTX* ctx, int nid, const std::string& value) {
    X509ExtPtr ext(X509V3_EXT_conf_nid(nullptr, ctx, nid, value.c_str()));
    if (!ext) {
        return base::Error{"cannot make the " + std::string(OBJ_nid2sn(nid)) + " extension \"" + value +
                           "\": " + openssl_error_take()};
    }
    if (X509_add_ext(cert, ext.get(), -1) != 1) return base::Error{openssl_error_take()};
    return {};
}

base::Status serial_set_random(X509* cert) {
    std::array<unsigned char, 16> bytes{};
    do {
        if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
            return base::Error{"the random generator failed: " + openssl_error_take()};
        }
        bytes[0] &= 0x7f;
    } while (bytes[0] == 0);
    BnPtr bn(BN_bin2bn(bytes.data(), static_cast<int>(bytes.size()), nullptr));
    if (!bn || !BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert))) {
        return base::Error{openssl_error_take()};
    }
    return {};
}

std::string bio_text(BIO* bio) {
    char* data = nullptr;
    long len = BIO_get_mem_data(bio, &data);
    return std::string(data, static_cast<size_t>(len));
}

std::string asn1_time_text(const ASN1_TIME* t) {
    std::tm tm{};
    if (ASN1_TIME_to_tm(t, &tm) != 1) return "(unreadable time)";
    char text[64];
    std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return text;
}

base::Status private_file_check(const fs::path& file, std::string_view what) {
    struct stat st;
    if (::stat(file.c_str(), &st) != 0 || (st.st_mode & 077) == 0) return {};
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return base::Error{"the " + std::string(what) + " " + file.string() + " can be read by others (mode " + mode +
                       "); make it private with: chmod 600 " + file.string()};
}

base::Result<std::string> file_read(const fs::path& file, std::string_view what) {
    base::Result<std::string> text = base::file_read(file.string(), std::string(what));
    if (!text) return base::Error{text.error() + "; check the path and its permissions"};
    return text;
}

std::string openssl_error_take() {
    unsigned long code = ERR_get_error();
    ERR_clear_error();
    if (code == 0) return "unknown OpenSSL error";
    std::array<char, 256> text{};
    ERR_error_string_n(code, text.data(), text.size());
    return text.data();
}

base::Result<PkeyPtr> key_create() {
    PkeyPtr key(EVP_EC_gen("P-256"));
    if (!key) return base::Error{"cannot create an EC P-256 key: " + openssl_error_take()};
    return key;
}

base::Result<std::string> key_to_pem(EVP_PKEY* key) {
    BioPtr bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
        return base::Error{"cannot encode the private key: " + openssl_error_take()};
    }
    return bio_text(bio.get());
}

base::Result<std::string> cert_to_pem(X509* cert) {
    BioPtr bio(BIO_new(BIO_s_mem()));
    if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) {
        return base::Error{"cannot encode the certificate: " + openssl_error_take()};
    }
    return bio_text(bio.get());
}

base::Result<PkeyPtr> key_load_pem(const fs::path& file, pem_password_cb* passphrase, void* user) {
    base::Result<std::string> text = file_read(file, "private key");
    if (!text.ok()) return text.failure();
    BioPtr bio(BIO_new_mem_buf(text.value().data(), static_cast<int>(text.value().size())));
    PkeyPtr key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, passphrase, user) : nullptr);
    OPENSSL_cleanse(text.value().data(), text.value().size());
    if (!key) {
        return base::Error{file.string() + " holds no readable PEM private key (" + openssl_error_take() +
                           "); it must be an unencrypted PEM key such as strata-ca writes"};
    }
    return key;
}

base::Result<X509Ptr> cert_load_pem(const fs::path& file) {
    base::Result<std::string> text = file_read(file, "certificate");
    if (!text.ok()) return text.failure();
    BioPtr bio(BIO_new_mem_buf(text.value().data(), static_cast<int>(text.value().size())));
    X509Ptr cert(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr);
    if (!cert) {
        return base::Error{file.string() + " holds no PEM certificate (" + openssl_error_take() +
                           "); give a file that starts with -----BEGIN CERTIFICATE-----"};
    }
    return cert;
}

std::vector<X509Ptr> certs_from_pem(std::string_view text) {
    std::vector<X509Ptr> out;
    BioPtr bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
    for (X509* c; bio && (c = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) != nullptr;)
        out.emplace_back(c);
    ERR_clear_error();  // the end of the text reads as "no start line"
    return out;
}

base::Result<std::string> certs_to_pem(const std::vector<X509*>& certs) {
    std::string text;
    for (X509* c : certs) {
        base::Result<std::string> pem = cert_to_pem(c);
        if (!pem.ok()) return pem;
        text += pem.value();
    }
    return text;
}

std::string name_to_globus(const X509_NAME* name) {
    std::string dn;
    int count = X509_NAME_entry_count(name);
    for (int i = 0; i < count; ++i) {
        const X509_NAME_ENTRY* entry = X509_NAME_get_entry(name, i);
        const ASN1_OBJECT* obj = X509_NAME_ENTRY_get_object(entry);
        int nid = OBJ_obj2nid(obj);
        std::string key;
        if (nid != NID_undef) {
            key = OBJ_nid2sn(nid);
        } else {
            std::array<char, 128> oid{};
            OBJ_obj2txt(oid.data(), static_cast<int>(oid.size()), obj, 1);
            key = oid.data();
        }
        unsigned char* utf8 = nullptr;
        int len = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(entry));
        std::string value;
        if (len >= 0) {
            value.assign(reinterpret_cast<const char*>(utf8), static_cast<size_t>(len));
            OPENSSL_free(utf8);
        }
        dn += '/';
        dn += key;
        dn += '=';
        dn += value;
    }
    return dn;
}

base::Result<X509NamePtr> name_from_globus(std::string_view dn) {
    if (dn.empty() || dn.front() != '/') {
        return base::Error{"the DN \"" + std::string(dn) +
                           "\" must be in slash form, such as \"/O=Strata Grid/CN=Jane Doe\""};
    }
    // Split at unescaped '/', then glue '='-less pieces onto the previous value.
    std::vector<std::pair<std::string, std::string>> parts;
    std::string piece;
    std::vector<std::string> pieces;
    for (size_t i = 1; i <= dn.size(); ++i) {
        if (i == dn.size() || dn[i] == '/') {
            pieces.push_back(std::move(piece));
            piece.clear();
        } else if (dn[i] == '\\' && i + 1 < dn.size()) {
            piece += dn[++i];
            if (dn[i] == '=') piece.back() = '\x01';  // an escaped '=' never splits
        } else {
            piece += dn[i];
        }
    }
    for (std::string& p : pieces) {
        if (p.empty()) {
            return base::Error{"the DN \"" + std::string(dn) + "\" has an empty component (\"//\" or a trailing '/')"};
        }
        size_t eq = p.find('=');
        if (eq == std::string::npos) {
            if (parts.empty()) {
                return base::Error{"the DN \"" + std::string(dn) + "\" starts with \"/" + p +
                                   "\", which is not of the form NAME=VALUE"};
            }
            parts.back().second += '/' + p;
            continue;
        }
        for (char& c : p) {
            if (c == '\x01') c = '=';
        }
        parts.emplace_back(p.substr(0, eq), p.substr(eq + 1));
    }
    X509NamePtr name(X509_NAME_new());
    if (!name) return base::Error{openssl_error_take()};
    for (auto& [key, value] : parts) {
        if (key.empty() || value.empty()) {
            return base::Error{"the DN \"" + std::string(dn) + "\" has an empty name or value in \"" + key + "=" +
                               value + "\""};
        }
        if (X509_NAME_add_entry_by_txt(name.get(), key.c_str(), MBSTRING_UTF8,
                                       reinterpret_cast<const unsigned char*>(value.c_str()), -1,
                                       -1, 0) != 1) {
            ERR_clear_error();
            return base::Error{"the DN \"" + std::string(dn) + "\" has an unknown attribute \"" + key +
                               "\"; use names such as C, O, OU, CN"};
        }
    }
    return name;
}

std::string gridmap_quote(std::string_view dn) {
    std::string out = "\"";
    for (char c : dn) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    out += '"';
    return out;
}

base::Result<X509Ptr> cert_create(const CertRequest& req) {
    auto fail = [](std::string text) { return base::Error{std::move(text)}; };
    X509Ptr cert(X509_new());
    if (!cert) return fail(openssl_error_take());
    X509* issuer = req.issuer ? req.issuer : cert.get();
    EVP_PKEY* signer = req.issuer ? req.issuer_key : req.subject_key;
    if (!req.subject || !req.subject_key || !signer) {
        return fail("cert_create: subject, subject key and issuer key are required");
    }
    if (req.issuer && X509_check_private_key(req.issuer, req.issuer_key) != 1) {
        ERR_clear_error();
        return fail("the CA private key does not belong to the CA certificate");
    }
    if (X509_set_version(cert.get(), X509_VERSION_3) != 1) return fail(openssl_error_take());
    if (base::Status s = serial_set_random(cert.get()); !s.ok()) return s.failure();
    if (X509_set_subject_name(cert.get(), req.subject) != 1 ||
        X509_set_issuer_name(cert.get(), req.issuer ? X509_get_subject_name(req.issuer)
                                                    : req.subject) != 1 ||
        X509_set_pubkey(cert.get(), req.subject_key) != 1) {
        return fail(openssl_error_take());
    }
    auto lifetime = std::chrono::duration_cast<std::chrono::seconds>(req.lifetime).count();
    if (!X509_gmtime_adj(X509_getm_notBefore(cert.get()), -300) ||
        !X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(lifetime))) {
        return fail(openssl_error_take());
    }

    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert.get(), nullptr, nullptr, 0);
    std::vector<std::pair<int, std::string>> exts;
    switch (req.kind) {
    case CertKind::ca:
        exts = {{NID_basic_constraints, "critical,CA:TRUE"},
                {NID_key_usage, "critical,keyCertSign,cRLSign"},
                {NID_subject_key_identifier, "hash"},
                {NID_authority_key_identifier, "keyid:always"}};
        break;
    case CertKind::host:
    case CertKind::user: {
        bool host = req.kind == CertKind::host;
        exts = {{NID_basic_constraints, "critical,CA:FALSE"},
                {NID_key_usage, "critical,digitalSignature"},
                {NID_ext_key_usage, host ? "serverAuth,clientAuth" : "clientAuth"},
                {NID_subject_key_identifier, "hash"},
                {NID_authority_key_identifier, "keyid:always"}};
        if (!req.alt_names.empty()) {
            std::string san;
            for (const std::string& alt : req.alt_names) san += (san.empty() ? "" : ",") + alt;
            exts.emplace_back(NID_subject_alt_name, san);
        }
        break;
    }
    }
    for (auto& [nid, value] : exts) {
        if (base::Status s = extension_add(cert.get(), &ctx, nid, value); !s.ok()) return s.failure();
    }
    if (X509_sign(cert.get(), signer, EVP_sha256()) <= 0) {
        return fail("cannot sign the certificate: " + openssl_error_take());
    }
    return cert;
}

std::string cert_subject_hash(X509* cert) {
    std::array<char, 16> text{};
    std::snprintf(text.data(), text.size(), "%08lx", X509_subject_name_hash(cert));
    return text.data();
}

base::Status directory_create(const fs::path& dir, fs::perms mode) {
    std::error_code ec;
    fs::path partial;
    for (const fs::path& part : dir) {
        partial /= part;
        if (fs::exists(partial, ec)) continue;
        if (!fs::create_directory(partial, ec) && ec) {
            return base::Error{"cannot create the directory " + partial.string() + ": " + ec.message() +
                               "; check the permissions of its parent"};
        }
        fs::permissions(partial, mode, ec);
    }
    if (!fs::is_directory(dir, ec)) {
        return base::Error{dir.string() + " exists but is not a directory; remove it or choose another path"};
    }
    return {};
}

base::Status files_write_atomic(std::span<const FileContent> files, bool overwrite) {
    if (!overwrite) {
        for (const FileContent& f : files) {
            std::error_code ec;
            if (fs::exists(fs::symlink_status(f.path, ec))) {
                return base::Error{f.path.string() + " already exists; move it away or pass --force to replace it"};
            }
        }
    }
    std::vector<TempFile> temps(files.size());
    for (size_t i = 0; i < files.size(); ++i) {
        const FileContent& f = files[i];
        // '.' rather than ".": GCC 12 at -O3 warns -Wrestrict inside libstdc++ on a
        // one-character literal + std::string&& (GCC bug 105329).
        std::string pattern = (f.path.parent_path() / ('.' + f.path.filename().string() + ".XXXXXX")).string();
        int fd = ::mkstemp(pattern.data());
        if (fd < 0) {
            int err = errno;
            return base::Error{"cannot write in " + f.path.parent_path().string() + ": " + errno_text(err) +
                               "; check that the directory exists and is writable"};
        }
        temps[i].path = pattern;
        bool good = ::fchmod(fd, static_cast<mode_t>(f.mode)) == 0;
        size_t done = 0;
        while (good && done < f.data.size()) {
            ssize_t n = ::write(fd, f.data.data() + done, f.data.size() - done);
            if (n < 0 && errno == EINTR) continue;
            good = n > 0;
            if (good) done += static_cast<size_t>(n);
        }
        good = good && ::fsync(fd) == 0;
        int err = errno;
        good = (::close(fd) == 0) && good;
        if (!good) {
            return base::Error{"cannot write " + f.path.string() + ": " + errno_text(err) +
                               "; check the free space and permissions of " + f.path.parent_path().string()};
        }
    }
    for (size_t i = 0; i < files.size(); ++i) {
        if (::rename(temps[i].path.c_str(), files[i].path.c_str()) != 0) {
            int err = errno;
            return base::Error{"cannot put " + files[i].path.string() + " in place: " + errno_text(err)};
        }
        temps[i].path.clear();
    }
    return {};
}

base::Result<fs::path> cert_dir_install(const fs::path& dir, X509* ca_cert, std::string_view policy_prefix,
                                        X509* replaces) {
    if (base::Status s = directory_create(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                                   fs::perms::others_read | fs::perms::others_exec);
        !s.ok()) {
        return s.failure();
    }
    base::Result<std::string> pem = cert_to_pem(ca_cert);
    if (!pem.ok()) return pem.failure();
    std::string hash = cert_subject_hash(ca_cert);
    const fs::perms readable = fs::perms::owner_read | fs::perms::owner_write |
                               fs::perms::group_read | fs::perms::others_read;
    fs::path target;
    for (int n = 0;; ++n) {
        target = dir / (hash + "." + std::to_string(n));
        std::error_code ec;
        if (!fs::exists(target, ec) || file_holds_cert(target, ca_cert) ||
            (replaces && file_holds_cert(target, replaces))) {
            break;
        }
    }
    // One signing_policy per hash serves every CA of that hash: add this
    // CA's entry unless it is there already.
    std::string ca_dn = name_to_globus(X509_get_subject_name(ca_cert));
    std::string access_id = "access_id_CA X509 '" + ca_dn + "'\n";
    fs::path policy_file = dir / (hash + ".signing_policy");
    std::string policy;
    std::error_code ec;
    if (fs::exists(policy_file, ec)) {
        base::Result<std::string> old = file_read(policy_file, "signing policy");
        if (!old.ok()) return old.failure();
        policy = old.value();
        if (!policy.empty() && policy.back() != '\n') policy += '\n';
    }
    if (policy.find(access_id) == std::string::npos) {
        policy += "# EACL for the CA " + ca_dn + ", written by strata-ca\n" + access_id +
                  "pos_rights globus CA:sign\n" + "cond_subjects globus '\"" +
                  std::string(policy_prefix) + "/*\"'\n";
    }
    std::vector<FileContent> files{{target, pem.value(), readable}, {policy_file, policy, readable}};
    if (base::Status s = files_write_atomic(files, true); !s.ok()) return s.failure();
    return target;
}

}  // namespace strata::security
