// profile's statistics in exact integer arithmetic (issue 38): durations are
// uint64, totals 128-bit (never saturated), the mean within [min, max].
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "core/json.h"
#include "ops/profile_stats.h"

namespace etpack {
namespace {

TEST(ProfileStats, U128DecimalIsExact) {
  EXPECT_EQ(u128_decimal(0, 0), "0");
  EXPECT_EQ(u128_decimal(0, UINT64_MAX), "18446744073709551615");
  EXPECT_EQ(u128_decimal(1, 0), "18446744073709551616");
  EXPECT_EQ(u128_decimal(1, (uint64_t{1} << 63) - 1), "27670116110564327423");  // 2^64 + 2^63 - 1
  EXPECT_EQ(u128_decimal(UINT64_MAX, UINT64_MAX), "340282366920938463463374607431768211455");
  EXPECT_EQ(u128_decimal(5, 1000000000), "92233720369547758080");  // 5 * 2^64 + 10^9
  EXPECT_EQ(u128_decimal(54210108, 11515845246265065477u), "1000000000000000000000000005");  // 10^27 + 5: zero-padded groups
  EXPECT_EQ(u128_decimal(1, 1), "18446744073709551617");
}

TEST(ProfileStats, TotalsPast64BitsAreExactAndTheMeanStaysInRange) {
  std::map<std::string, DurationStats> rows;
  rows["big"].durations = {UINT64_MAX, uint64_t{1} << 63};
  rows["big"].methods = {"forward"};
  rows["small"].durations = {3, 1, 2};
  std::string out;
  write_duration_stats(rows, out);
  auto json = parse_json(out);
  ASSERT_TRUE(json.ok()) << out;
  ASSERT_EQ(json->items().size(), 2u);
  const Json& big = json->items()[0];
  EXPECT_EQ(big.find("name")->text(), "big");
  EXPECT_NE(out.find("\"total\":27670116110564327423"), std::string::npos) << out;
  EXPECT_NE(out.find("\"min\":9223372036854775808"), std::string::npos) << out;
  EXPECT_NE(out.find("\"max\":18446744073709551615"), std::string::npos) << out;
  const double mean = *big.find("mean")->as_double();
  EXPECT_GE(mean, 9223372036854775808.0);
  EXPECT_LE(mean, 18446744073709551615.0);
  const Json& small = json->items()[1];
  EXPECT_EQ(*small.find("total")->as_int64(), 6);
  EXPECT_EQ(*small.find("min")->as_int64(), 1);
  EXPECT_DOUBLE_EQ(*small.find("mean")->as_double(), 2.0);
  EXPECT_DOUBLE_EQ(*small.find("p50")->as_double(), 2.0);
}

TEST(ProfileStats, PercentileIsNumpysLinearOnUnsignedValues) {
  EXPECT_DOUBLE_EQ(percentile_linear({1, 2, 3, 4}, 10), 1.3);
  EXPECT_EQ(percentile_linear({UINT64_MAX}, 50), 18446744073709551615.0);
}

}  // namespace
}  // namespace etpack
