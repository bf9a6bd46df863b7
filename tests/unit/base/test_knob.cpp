#include <catch2/catch.hpp>

#include "base/knob.hpp"

TEST_CASE("knobs read the environment once and fall back to the default") {
    setenv("STRATA_TEST_KNOB_A", "123", 1);
    setenv("STRATA_TEST_KNOB_B", "12KB", 1);
    static const strata::base::KnobInt a{"STRATA_TEST_KNOB_A", 5, "test"};
    static const strata::base::KnobInt b{"STRATA_TEST_KNOB_B", 7, "test", true};
    static const strata::base::KnobInt c{"STRATA_TEST_KNOB_C", 9, "test"};
    CHECK(a.get() == 123);
    CHECK(b.get() == 7);
    CHECK(c.get() == 9);
    bool listed = false;
    for (const auto& k : strata::base::knobs_all()) listed = listed || k.name == "STRATA_TEST_KNOB_A";
    CHECK(listed);
}

TEST_CASE("knob_setting reports what the environment sets, judged as the knob judges it") {
    using strata::base::KnobInfo;
    using strata::base::knob_setting;
    const KnobInfo number{"STRATA_TEST_SETTING_INT", "int", "1", "test"};
    const KnobInfo size{"STRATA_TEST_SETTING_SIZE", "size", "1", "test"};
    const KnobInfo text{"STRATA_TEST_SETTING_STRING", "string", "", "test"};
    unsetenv("STRATA_TEST_SETTING_INT");
    CHECK_FALSE(knob_setting(number));
    setenv("STRATA_TEST_SETTING_INT", "", 1);
    CHECK_FALSE(knob_setting(number));  // an empty number is unset, as KnobInt::get reads it
    setenv("STRATA_TEST_SETTING_INT", "-12", 1);
    CHECK(knob_setting(number).value().valid);
    setenv("STRATA_TEST_SETTING_INT", "64K", 1);
    CHECK(knob_setting(number).value().text == "64K");
    CHECK_FALSE(knob_setting(number).value().valid);  // plain integers take no suffix
    setenv("STRATA_TEST_SETTING_SIZE", "64K", 1);
    CHECK(knob_setting(size).value().valid);
    setenv("STRATA_TEST_SETTING_SIZE", "12KB", 1);
    CHECK_FALSE(knob_setting(size).value().valid);
    setenv("STRATA_TEST_SETTING_STRING", "", 1);
    CHECK(knob_setting(text).value().text.empty());  // an empty string is a value of its own
}
