// A CA and Jane Doe's user certificate in a scratch directory, for the tests
// of what uses credentials.
#pragma once

#include "security/cert_authority.hpp"
#include "tests/unit/security/scratch_dir.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <filesystem>

namespace strata::test {

struct TestUser {
    ScratchDir scratch;
    std::filesystem::path ca_dir;    // trusted-CA directory
    security::Issued issued;         // user certificate and key files

    explicit TestUser(int days = 365) {
        security::CaCreateOptions opts;
        opts.dir = scratch.path() / "ca";
        opts.cert_dir = ca_dir = scratch.path() / "certificates";
        REQUIRE(security::ca_create(opts).ok());
        base::Result<security::CertAuthority> ca = security::ca_load(opts.dir);
        REQUIRE(ca.ok());
        security::IssueOptions issue;
        issue.name = "Jane Doe";
        issue.out_dir = scratch.path() / "user";
        issue.lifetime = std::chrono::days(days);
        base::Result<security::Issued> made = security::cert_issue(ca.value(), issue);
        REQUIRE(made.ok());
        issued = made.value();
    }
};

}  // namespace strata::test
