// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Division by a divisor that stays the same for a whole launch, by one high multiply, a subtraction and two
// shifts instead of a division instruction: the 2-D index forms (index_pair.hpp) split every flat index k
// into k / extent and k % extent, and a GPU has no integer divider (a 64-bit division there is a call of
// several dozen instructions). The method is Granlund and Montgomery's ("Division by invariant integers
// using multiplication", PLDI 1994, section 4), in the form that needs no 33-bit or 65-bit multiplier: with
// l = ceil(log2 d) and m = floor(2^N (2^l - d) / d) + 1, for every N-bit x
//   t = high half of m x,   x / d = (t + ((x - t) >> min(l, 1))) >> max(l - 1, 0).
// Plain C++ (both halves use it); the divisor is made on the host, quotient() runs on either side.
#pragma once

#include <ksync/detail/arguments.hpp>
#include <ksync/detail/host_device.hpp>

#include <bit>
#include <cstdint>
#include <type_traits>

namespace ksync::detail {

template <class Index>
class invariant_divisor {
  static_assert(std::is_same_v<Index, std::int32_t> || std::is_same_v<Index, std::int64_t>,
                "ksync::detail::invariant_divisor: the index type is std::int32_t or std::int64_t");
  using word = std::make_unsigned_t<Index>;
  static constexpr int word_bits = 8 * sizeof(word);

 public:
  invariant_divisor() = default;

  // divisor >= 1 (an extent of a non-empty 2-D range).
  explicit invariant_divisor(Index divisor) : divisor_(divisor) {
    check_argument(divisor >= 1, "ksync::detail::invariant_divisor", "divisor = ", divisor, " is not positive");
    const auto d = static_cast<word>(divisor);
    // l: the smallest with 2^l >= d (l < word_bits, since d < 2^(word_bits - 1))
    const int log2_ceiling = static_cast<int>(std::bit_width(static_cast<word>(d - 1)));
    const word excess = static_cast<word>((word{1} << log2_ceiling) - d);  // 2^l - d, less than d
    multiplier_ = static_cast<word>(wide_quotient(excess, d) + 1);
    first_shift_ = log2_ceiling < 1 ? log2_ceiling : 1;
    second_shift_ = log2_ceiling > 1 ? log2_ceiling - 1 : 0;
  }

  KSYNC_HOST_DEVICE Index divisor() const { return divisor_; }

  // x / divisor() for 0 <= x.
  KSYNC_HOST_DEVICE Index quotient(Index x) const {
    const auto unsigned_x = static_cast<word>(x);
    const word high = multiply_high(multiplier_, unsigned_x);
    return static_cast<Index>(static_cast<word>(high + static_cast<word>((unsigned_x - high) >> first_shift_)) >>
                              second_shift_);
  }

 private:
  // floor(excess 2^word_bits / d), which fits a word because excess < d.
  static word wide_quotient(word excess, word d) {
    if constexpr (word_bits == 32) {
      return static_cast<word>((std::uint64_t{excess} << 32) / d);
    } else {
      __extension__ using double_word = unsigned __int128;
      return static_cast<word>((static_cast<double_word>(excess) << 64) / d);
    }
  }

  KSYNC_HOST_DEVICE static word multiply_high(word a, word b) {
#if defined(__CUDA_ARCH__)
    if constexpr (word_bits == 32) {
      return __umulhi(a, b);
    } else {
      return __umul64hi(a, b);
    }
#else
    if constexpr (word_bits == 32) {
      return static_cast<word>((std::uint64_t{a} * b) >> 32);
    } else {
      __extension__ using double_word = unsigned __int128;
      return static_cast<word>((static_cast<double_word>(a) * b) >> 64);
    }
#endif
  }

  Index divisor_ = 1;
  word multiplier_ = 1;
  int first_shift_ = 0;
  int second_shift_ = 0;
};

}  // namespace ksync::detail
