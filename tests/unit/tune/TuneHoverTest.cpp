// Hover on tune parameters (the language server): the default point, the
// candidates, the lattice size and the cache's tuned points; the "Tune" code
// lens appears on tunable kernels only.
#include "TuneHover.h"
#include "tune/Cache.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

using namespace kina;

namespace {
const char *kText = R"(kernel plain [M]
    (a : Tensor[F32, [M], on=cuda:global])
    : (c : Tensor[F32, [M], on=cuda:global]) {
}

kernel k [M]
    tune BM in {64, 128, 256} = 128
    tune S in {2, 3} = 3
    requires (M mod BM = 0)
    (a : Tensor[F32, [M], on=cuda:global])
    : (c : Tensor[F32, [M], on=cuda:global]) {
  block_grid [M / BM] {
  }
}
)";
} // namespace

TEST(TuneHover, DeclarationAndUse) {
  std::string text = kText;
  std::string cache = (std::filesystem::temp_directory_path() /
                       ("kina-hover-" + std::to_string(getpid()) + ".jsonl"))
                          .string();
  std::filesystem::remove(cache);
  uint32_t decl = static_cast<uint32_t>(text.find("tune BM") + 5);
  auto h = lsp::tuneHover(text, decl, cache);
  ASSERT_TRUE(h);
  EXPECT_NE(h->markdown.find("**tune BM** = 128 (the default point"), std::string::npos)
      << h->markdown;
  EXPECT_NE(h->markdown.find("candidates {64, 128, 256}"), std::string::npos);
  EXPECT_NE(h->markdown.find("has 6 points (3 BM x 2 S)"), std::string::npos);
  EXPECT_EQ(h->markdown.find("Tuned"), std::string::npos);
  // A use in the body, with a tuned point in the cache.
  tune::Record r;
  r.kernel = "k";
  r.point = "BM=256,S=2";
  r.shape = "M=4096";
  r.medianMs = 0.125;
  r.tflops = 600;
  r.env.device = "NVIDIA H200";
  std::string error;
  ASSERT_TRUE(tune::TuneCache(cache).append(r, error));
  uint32_t use = static_cast<uint32_t>(text.find("M / BM") + 4);
  h = lsp::tuneHover(text, use, cache);
  ASSERT_TRUE(h);
  EXPECT_NE(h->markdown.find("- M=4096 on NVIDIA H200: `BM=256,S=2`, 0.125 ms, 600 TFLOP/s"),
            std::string::npos)
      << h->markdown;
  // Not a parameter: no tune hover.
  EXPECT_FALSE(lsp::tuneHover(text, static_cast<uint32_t>(text.find("block_grid")), cache));
  EXPECT_FALSE(lsp::tuneHover(text, static_cast<uint32_t>(text.find("plain")), cache));
  std::filesystem::remove(cache);
}

TEST(TuneHover, CodeLensOnTunableKernelsOnly) {
  std::string text = kText;
  EXPECT_FALSE(lsp::kernelIsTunable(text, static_cast<uint32_t>(text.find("plain"))));
  EXPECT_TRUE(lsp::kernelIsTunable(text, static_cast<uint32_t>(text.find("k [M]"))));
}
