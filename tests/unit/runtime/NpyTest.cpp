//===- NpyTest.cpp - .npy reading and writing ----------------------------===//
#include "runtime/Npy.h"
#include "runtime/Random.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

using namespace kina::runtime;

static std::vector<std::uint8_t> npyImage(const std::string &dict, std::size_t dataBytes,
                                          int major = 1) {
  std::vector<std::uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', std::uint8_t(major), 0};
  std::string h = dict + "\n";
  if (major == 1) {
    out.push_back(std::uint8_t(h.size() & 0xff));
    out.push_back(std::uint8_t(h.size() >> 8));
  } else {
    for (int i = 0; i < 4; ++i)
      out.push_back(std::uint8_t(h.size() >> (8 * i)));
  }
  out.insert(out.end(), h.begin(), h.end());
  for (std::size_t i = 0; i < dataBytes; ++i)
    out.push_back(std::uint8_t(i));
  return out;
}

static Result<HostTensor> parse(const std::vector<std::uint8_t> &img) {
  return parseNpy(img, "x.npy");
}

TEST(Npy, EncodesNumpysExactHeader) {
  HostTensor t(DType::F32, {2, 3});
  std::vector<std::uint8_t> img = encodeNpy(t);
  // What numpy.save writes for np.zeros((2, 3), np.float32): 128-byte header block.
  std::string header(img.begin() + 10, img.begin() + 128);
  std::string expect = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  expect.append(117 - expect.size(), ' ');
  expect.push_back('\n');
  EXPECT_EQ(header, expect);
  EXPECT_EQ(img.size(), 128u + 24);
  EXPECT_EQ(img[8] | img[9] << 8, 118);
}

TEST(Npy, OneDimensionalAndScalarShapes) {
  HostTensor v(DType::I32, {5});
  std::vector<std::uint8_t> img = encodeNpy(v);
  std::string header(img.begin() + 10, img.end() - 20);
  EXPECT_NE(header.find("'shape': (5,)"), std::string::npos) << header;
  HostTensor s(DType::I32, {});
  img = encodeNpy(s);
  header.assign(img.begin() + 10, img.end() - 4);
  EXPECT_NE(header.find("'shape': ()"), std::string::npos) << header;
  auto back = parse(img);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_TRUE(back->shape.empty());
  EXPECT_EQ(back->numel(), 1u);
}

TEST(Npy, RoundTripsEveryDType) {
  for (DType dt : {DType::F16, DType::BF16, DType::F32, DType::F64, DType::I8, DType::U8,
                   DType::I32, DType::I64}) {
    HostTensor t(dt, {3, 5, 7});
    fillRandom(t, 42, 1);
    auto back = parse(encodeNpy(t));
    ASSERT_TRUE(back) << back.error().message;
    EXPECT_EQ(back->dtype, dt);
    EXPECT_EQ(back->shape, t.shape);
    EXPECT_EQ(back->bytes, t.bytes) << dtypeName(dt);
  }
}

TEST(Npy, RoundTripsThroughAFile) {
  HostTensor t(DType::BF16, {4, 4});
  fillRandom(t, 7, 0);
  std::string path = (std::filesystem::temp_directory_path() / "kina_npy_test.npy").string();
  ASSERT_TRUE(writeNpy(path, t));
  auto back = readNpyFor(path, "a", DType::BF16, {4, 4});
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->bytes, t.bytes);
  auto wrongShape = readNpyFor(path, "a", DType::BF16, {4, 8});
  ASSERT_FALSE(wrongShape);
  EXPECT_NE(wrongShape.error().message.find("holds bf16[4, 4] but parameter `a` is bf16[4, 8]"),
            std::string::npos);
  auto wrongType = readNpyFor(path, "a", DType::F16, {4, 4});
  ASSERT_FALSE(wrongType);
  EXPECT_NE(wrongType.error().message.find("arr.astype(np.float16)"), std::string::npos);
  std::remove(path.c_str());
}

TEST(Npy, AcceptsHeaderVariants) {
  // Version 2.0, double quotes, no trailing comma, extra spaces.
  auto t = parse(npyImage(R"({"descr":"<f2","fortran_order":False,"shape":( 4 , 2 )})", 16, 2));
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->dtype, DType::F16);
  EXPECT_EQ(t->shape, (std::vector<std::int64_t>{4, 2}));
  // bfloat16 conventions: <u2, <i2, |V2.
  for (const char *d : {"<u2", "<i2", "|V2", "<V2"}) {
    auto b = parse(npyImage(std::string("{'descr': '") + d +
                                "', 'fortran_order': False, 'shape': (3,), }",
                            6));
    ASSERT_TRUE(b) << d << ": " << b.error().message;
    EXPECT_EQ(b->dtype, DType::BF16);
  }
  auto i8 = parse(npyImage("{'descr': '|i1', 'fortran_order': False, 'shape': (2, 2), }", 4));
  ASSERT_TRUE(i8);
  EXPECT_EQ(i8->dtype, DType::I8);
}

static std::string npyError(const std::vector<std::uint8_t> &img) {
  auto t = parse(img);
  EXPECT_FALSE(t);
  if (t)
    return "";
  EXPECT_EQ(t.error().kind, ErrorKind::InvalidNpy);
  return t.error().message;
}

TEST(Npy, RejectsWithAReason) {
  EXPECT_NE(npyError({1, 2, 3}).find("not a .npy file"), std::string::npos);
  EXPECT_NE(npyError(npyImage("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", 16))
                .find("unsupported dtype '<c8'"),
            std::string::npos);
  EXPECT_NE(npyError(npyImage("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8))
                .find("big-endian"),
            std::string::npos);
  EXPECT_NE(npyError(npyImage("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16))
                .find("Fortran-order"),
            std::string::npos);
  EXPECT_NE(npyError(npyImage("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", 15))
                .find("needs 16 data bytes, the file has 15"),
            std::string::npos);
  EXPECT_NE(npyError(npyImage("{'descr': '<f4', 'shape': (2,), }", 8)).find("lacks"),
            std::string::npos);
  EXPECT_NE(npyError(npyImage("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
                              4))
                .find("structured"),
            std::string::npos);
  EXPECT_NE(npyError(npyImage("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", 4))
                .find("non-negative"),
            std::string::npos);
  EXPECT_NE(npyError(npyImage("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), ", 8))
                .find("header"),
            std::string::npos);
  std::vector<std::uint8_t> truncated = npyImage("{'descr': '<f4', 'fortran_order': False, "
                                                 "'shape': (2,), }",
                                                 8);
  truncated.resize(20);
  EXPECT_NE(npyError(truncated).find("truncated header"), std::string::npos);
  EXPECT_NE(npyError(npyImage("{'descr': '<f4', 'fortran_order': False, 'shape': "
                              "(99999999, 99999999, 99999999), }",
                              0))
                .find("too large"),
            std::string::npos);
}

TEST(Npy, MissingFileIsIoError) {
  auto t = readNpy("/nonexistent/file.npy");
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().kind, ErrorKind::Io);
}

TEST(Npy, CorruptedImagesNeverCrash) {
  HostTensor t(DType::F16, {3, 4});
  fillRandom(t, 1, 0);
  const std::vector<std::uint8_t> good = encodeNpy(t);
  SplitMix64 rng(2024);
  int parsed = 0;
  for (int i = 0; i < 5000; ++i) {
    std::vector<std::uint8_t> img = good;
    int flips = 1 + int(rng.next() % 4);
    for (int f = 0; f < flips; ++f)
      img[rng.next() % 80] = std::uint8_t(rng.next()); // header region
    if (rng.next() % 4 == 0)
      img.resize(rng.next() % img.size());
    auto r = parseNpy(img, "fuzz");
    if (r) {
      ++parsed;
      EXPECT_EQ(r->byteSize(), r->numel() * dtypeSize(r->dtype));
    } else {
      EXPECT_EQ(r.error().kind, ErrorKind::InvalidNpy);
    }
  }
  EXPECT_GT(parsed, 0); // some flips land in padding and still parse
}
