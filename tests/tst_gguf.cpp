// GGUF reader: round trips of every metadata type and tensor type through the writer,
// alignment and data placement, typed accessors, and malformed files — each an
// lwb::Error naming the key or tensor, never a crash (every truncation of a valid file).
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>
#include <fstream>
#include <random>

#include "engine/common/error.h"
#include "engine/model/gguf.h"
#include "engine/model/quant.h"

using namespace lwb;

namespace {

// Hand-built GGUF bytes, for files the writer would never produce.
struct Raw {
  std::vector<uint8_t> b;
  template <typename T>
  Raw& put(T v) {
    const size_t at = b.size();
    b.resize(at + sizeof(T));
    std::memcpy(b.data() + at, &v, sizeof(T));
    return *this;
  }
  Raw& str(const std::string& s) {
    put<uint64_t>(s.size());
    b.insert(b.end(), s.begin(), s.end());
    return *this;
  }
  Raw& header(uint64_t numTensors, uint64_t numKv, uint32_t version = 3) {
    return put<uint32_t>(0x46554747).put<uint32_t>(version).put<uint64_t>(numTensors).put<uint64_t>(numKv);
  }
  Raw& tensor(const std::string& name, std::vector<uint64_t> dims, uint32_t type, uint64_t offset) {
    str(name).put<uint32_t>(uint32_t(dims.size()));
    for (uint64_t d : dims) put<uint64_t>(d);
    return put<uint32_t>(type).put<uint64_t>(offset);
  }
  Raw& pad(size_t alignment = 32) {
    while (b.size() % alignment) b.push_back(0);
    return *this;
  }
  Raw& zeros(size_t n) {
    b.resize(b.size() + n, 0);
    return *this;
  }
};

QString errorOf(const std::vector<uint8_t>& bytes) {
  try {
    parseGguf(bytes.data(), bytes.size(), "m.gguf");
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

#define QVERIFY_ERROR(bytes, ...)                                                          \
  do {                                                                                     \
    const QString e = errorOf(bytes);                                                      \
    QVERIFY2(!e.isEmpty(), "accepted");                                                    \
    for (const char* part : {__VA_ARGS__}) QVERIFY2(e.contains(part), qPrintable(e));      \
  } while (0)

std::vector<std::pair<std::string, GgufValue>> everyValueType() {
  auto v = [](GgufValueType t, uint64_t u, int64_t i, double f) {
    GgufValue x;
    x.type = t;
    x.u = u;
    x.i = i;
    x.f = f;
    return x;
  };
  using T = GgufValueType;
  return {{"general.architecture", ggufString("llama")},
          {"u8", v(T::Uint8, 200, 0, 0)},        {"i8", v(T::Int8, 0, -100, 0)},
          {"u16", v(T::Uint16, 60000, 0, 0)},    {"i16", v(T::Int16, 0, -30000, 0)},
          {"u32", ggufUint32(4000000000u)},      {"i32", ggufInt32(-2000000000)},
          {"u64", v(T::Uint64, 1ull << 60, 0, 0)}, {"i64", v(T::Int64, 0, -(1ll << 60), 0)},
          {"f32", ggufFloat32(0.5f)},            {"f64", v(T::Float64, 0, 0, 1e300)},
          {"flag", ggufBool(true)},
          {"tokens", ggufArray(T::String, {ggufString("<s>"), ggufString(""), ggufString("héllo")})},
          {"scores", ggufArray(T::Float32, {ggufFloat32(-1.5f), ggufFloat32(2.f)})},
          {"nested", ggufArray(T::Array, {ggufArray(T::Int32, {ggufInt32(1), ggufInt32(-2)}), ggufArray(T::Int32, {})})}};
}

GgufTensorData randomTensor(const std::string& name, GgmlType t, std::vector<int64_t> dims, std::mt19937& rng) {
  GgufTensorData d{name, t, dims, {}};
  int64_t rows = 1;
  for (size_t k = 1; k < dims.size(); ++k) rows *= dims[k];
  d.bytes.resize(ggmlRowBytes(t, dims[0]) * size_t(rows));
  for (uint8_t& b : d.bytes) b = uint8_t(rng());
  return d;
}

}  // namespace

class TestGguf : public QObject {
  Q_OBJECT

 private slots:
  void roundTripsMetadataAndTensors() {
    QTemporaryDir tmp;
    std::mt19937 rng(1);
    const std::vector<GgufTensorData> tensors = {
        randomTensor("token_embd.weight", GgmlType::Q8_0, {96, 5}, rng),
        randomTensor("blk.0.attn_q.weight", GgmlType::Q4_K, {512, 3}, rng),
        randomTensor("output_norm.weight", GgmlType::F32, {7}, rng),
        randomTensor("blk.0.ffn_down.weight", GgmlType::Q6_K, {256, 2, 1}, rng),
        randomTensor("x.bf16", GgmlType::BF16, {3}, rng)};
    auto metadata = everyValueType();
    metadata.push_back({"general.alignment", ggufUint32(64)});
    const std::string path = tmp.filePath("m.gguf").toStdString();
    writeGguf(path, metadata, tensors, 64);

    auto f = GgufFile::open(path);
    QCOMPARE(f->version(), 3u);
    QCOMPARE(f->metadata().size(), metadata.size());
    QCOMPARE(f->getString("general.architecture"), std::string("llama"));
    QCOMPARE(f->getUint("u8"), uint64_t(200));
    QCOMPARE(f->find("i8")->i, int64_t(-100));
    QCOMPARE(f->getUint("u16"), uint64_t(60000));
    QCOMPARE(f->find("i16")->i, int64_t(-30000));
    QCOMPARE(f->getUint("u32"), uint64_t(4000000000u));
    QCOMPARE(f->find("i32")->i, int64_t(-2000000000));
    QCOMPARE(f->getUint("u64"), uint64_t(1) << 60);
    QCOMPARE(f->find("i64")->i, -(int64_t(1) << 60));
    QCOMPARE(f->getFloat("f32"), 0.5);
    QCOMPARE(f->getFloat("f64"), 1e300);
    QCOMPARE(f->find("flag")->u, uint64_t(1));
    QCOMPARE(f->getStringArray("tokens"), (std::vector<std::string>{"<s>", "", "héllo"}));
    QCOMPARE(f->getFloatArray("scores"), (std::vector<double>{-1.5, 2.0}));
    QCOMPARE(f->find("nested")->array.size(), size_t(2));
    QCOMPARE(f->find("nested")->array[0].array[1].i, int64_t(-2));
    QCOMPARE(f->getUintOr("absent", 7), uint64_t(7));

    QCOMPARE(f->tensors().size(), tensors.size());
    for (size_t k = 0; k < tensors.size(); ++k) {
      const GgufTensor& t = f->tensors()[k];
      QCOMPARE(t.name, tensors[k].name);
      QCOMPARE(t.type, tensors[k].type);
      QCOMPARE(t.dims, tensors[k].dims);
      QCOMPARE(t.shape.front(), tensors[k].dims.back());
      QCOMPARE(t.numBytes, tensors[k].bytes.size());
      QCOMPARE(reinterpret_cast<uintptr_t>(t.data) % 64, uintptr_t(0));
      QVERIFY(std::memcmp(t.data, tensors[k].bytes.data(), t.numBytes) == 0);
    }
    QCOMPARE(f->findTensor("blk.0.attn_q.weight")->numRows(), int64_t(3));
  }

  void typedAccessorsNameKeyAndType() {
    QTemporaryDir tmp;
    const std::string path = tmp.filePath("m.gguf").toStdString();
    writeGguf(path, everyValueType(), {});
    auto f = GgufFile::open(path);
    auto message = [&](auto fn) -> QString {
      try {
        fn();
      } catch (const Error& e) {
        return e.what();
      }
      return {};
    };
    QVERIFY(message([&] { f->getString("u32"); }).contains("metadata key u32: expected a string, found uint32"));
    QVERIFY(message([&] { f->getUint("i32"); }).contains("i32 = -2000000000: expected a non-negative"));
    QVERIFY(message([&] { f->getUint("llama.block_count"); }).contains("missing metadata key llama.block_count"));
    QVERIFY(message([&] { f->getStringArray("scores"); }).contains("found array of float32"));
    QVERIFY(message([&] { f->getFloat("tokens"); }).contains("expected a number"));
  }

  void rejectsBadHeaders() {
    QVERIFY_ERROR(Raw().put<uint32_t>(0x46554746).put<uint32_t>(3).zeros(16).b, "m.gguf", "not a GGUF file");
    QVERIFY_ERROR(Raw().header(0, 0, 1).b, "GGUF version 1 is not supported");
    QVERIFY_ERROR(Raw().header(0, 0, 4).b, "GGUF version 4");
    QVERIFY_ERROR(Raw().header(0, 0, 0x03000000).b, "big-endian");
    QVERIFY_ERROR(Raw().put<uint32_t>(0x46554747).b, "truncated", "version");
    QVERIFY_ERROR(Raw().header(0, uint64_t(1) << 62).b, "metadata count");
    QVERIFY_ERROR(Raw().header(uint64_t(1) << 40, 0).b, "tensor count");
    QVERIFY(errorOf(Raw().header(0, 0).b).isEmpty());  // an empty model file is well formed
  }

  void rejectsBadMetadataNamingTheKey() {
    QVERIFY_ERROR(Raw().header(0, 1).str("k.type").put<uint32_t>(13).b, "metadata key k.type", "unknown value type 13");
    QVERIFY_ERROR(Raw().header(0, 1).str("k.str").put<uint32_t>(8).put<uint64_t>(1000).str("x").b, "metadata key k.str",
                  "truncated");
    QVERIFY_ERROR(Raw().header(0, 1).str("k.arr").put<uint32_t>(9).put<uint32_t>(4).put<uint64_t>(1ull << 61).b,
                  "metadata key k.arr", "does not fit");
    QVERIFY_ERROR(Raw().header(0, 1).str("k.arr").put<uint32_t>(9).put<uint32_t>(77).put<uint64_t>(0).b,
                  "metadata key k.arr", "unknown array element type 77");
    QVERIFY_ERROR(Raw().header(0, 1).str("k.bool").put<uint32_t>(7).put<uint8_t>(2).b, "metadata key k.bool", "bool");
    QVERIFY_ERROR(Raw().header(0, 2).str("k").put<uint32_t>(4).put<uint32_t>(1).str("k").put<uint32_t>(4).put<uint32_t>(1).b,
                  "metadata key k appears twice");
    QVERIFY_ERROR(Raw().header(0, 1).str("general.alignment").put<uint32_t>(4).put<uint32_t>(48).b,
                  "general.alignment = 48", "power of two");
    QVERIFY_ERROR(Raw().header(0, 1).str("general.alignment").put<uint32_t>(4).put<uint32_t>(1).b,
                  "general.alignment = 1", "at least 8");
    QVERIFY_ERROR(Raw().header(0, 1).str("general.alignment").put<uint32_t>(8).str("32").b, "general.alignment",
                  "expected a uint32");
    Raw deep;
    deep.header(0, 1).str("deep").put<uint32_t>(9);
    for (int d = 0; d < 6; ++d) deep.put<uint32_t>(9).put<uint64_t>(1);
    QVERIFY_ERROR(deep.b, "metadata key deep", "nested deeper");
  }

  void rejectsBadTensorInfosNamingTheTensor() {
    auto one = [](std::vector<uint64_t> dims, uint32_t type, uint64_t offset, size_t data) {
      return Raw().header(1, 0).tensor("blk.0.attn_k.weight", dims, type, offset).pad().zeros(data).b;
    };
    QVERIFY(errorOf(one({64, 2}, 8, 0, 2 * 68)).isEmpty());
    QVERIFY_ERROR(one({64, 2}, 23, 0, 4096), "tensor blk.0.attn_k.weight", "unsupported tensor type IQ4_XS");
    QVERIFY_ERROR(one({64, 2}, 15, 0, 4096), "tensor blk.0.attn_k.weight", "unsupported tensor type Q8_K");
    QVERIFY_ERROR(one({64, 2}, 1000, 0, 4096), "unsupported tensor type type 1000");
    QVERIFY_ERROR(one({100, 2}, 12, 0, 4096), "tensor blk.0.attn_k.weight", "row length 100", "256");
    QVERIFY_ERROR(one({64, 2, 1, 1, 1}, 0, 0, 4096), "tensor blk.0.attn_k.weight", "5 dimensions");
    QVERIFY_ERROR(one({64, 0}, 0, 0, 4096), "tensor blk.0.attn_k.weight", "dimension 1 = 0");
    QVERIFY_ERROR(one({1ull << 40, 1ull << 40}, 0, 0, 4096), "tensor blk.0.attn_k.weight", "overflow");
    QVERIFY_ERROR(one({64, 2}, 0, 16, 4096), "tensor blk.0.attn_k.weight", "offset 16", "alignment 32");
    QVERIFY_ERROR(one({64, 2}, 0, 0, 511), "tensor blk.0.attn_k.weight", "outside the file's data section");
    QVERIFY_ERROR(one({64, 2}, 0, ~uint64_t(31), 4096), "tensor blk.0.attn_k.weight", "outside");
    QVERIFY_ERROR(Raw().header(1, 0).tensor("t", {8}, 0, 0).b, "truncated", "data section");
    QVERIFY_ERROR(Raw().header(1, 0).put<uint64_t>(100).zeros(40).b, "name of tensor #0");
    QVERIFY_ERROR(Raw().header(2, 0).tensor("a", {64}, 0, 0).tensor("b", {64}, 0, 128).pad().zeros(512).b,
                  "tensors a and b overlap");
    QVERIFY_ERROR(Raw().header(2, 0).tensor("a", {8}, 0, 0).tensor("a", {8}, 0, 32).pad().zeros(64).b,
                  "tensor a appears twice");
  }

  // Every prefix of a valid file is rejected with an error (or, cut only in the trailing
  // padding, accepted with every tensor inside the bytes it was given).
  void everyTruncationIsAnErrorNeverACrash() {
    std::mt19937 rng(2);
    const auto bytes = serializeGguf(everyValueType(), {randomTensor("a", GgmlType::Q4_0, {64, 2}, rng),
                                                         randomTensor("b", GgmlType::F16, {5}, rng)});
    size_t accepted = 0;
    for (size_t n = 0; n < bytes.size(); ++n) {
      std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + long(n));
      try {
        const GgufContents g = parseGguf(prefix.data(), n, "cut.gguf");
        for (const GgufTensor& t : g.tensors) QVERIFY(t.data + t.numBytes <= prefix.data() + n);
        ++accepted;
      } catch (const Error& e) {
        QVERIFY(QString(e.what()).startsWith("cut.gguf: "));
      }
    }
    QVERIFY(accepted < 32);  // at most the final padding
  }

  void theFuzzSeedIsAValidFile() {
    auto f = GgufFile::open(LWB_SOURCE_DIR "/fuzz/seeds/fuzz_gguf/small.gguf");
    QCOMPARE(f->getString("general.architecture"), std::string("llama"));
    QCOMPARE(f->tensors().size(), size_t(3));
    QCOMPARE(f->findTensor("b")->type, GgmlType::Q4_K);
  }

  void openNamesTheFile() {
    QVERIFY_THROWS_EXCEPTION(Error, GgufFile::open("/nonexistent/x.gguf"));
    QTemporaryDir tmp;
    const std::string path = tmp.filePath("empty.gguf").toStdString();
    { std::ofstream(path, std::ios::binary); }
    try {
      GgufFile::open(path);
      QFAIL("accepted an empty file");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains("empty.gguf: truncated"), e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestGguf)
#include "tst_gguf.moc"
