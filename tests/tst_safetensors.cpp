// safetensors: write/read round trips for every dtype, header validation (each error
// names the file and the tensor), sharded folders, WeightStore::require.
#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "engine/common/error.h"
#include "engine/model/safetensors.h"

using namespace lwb;
using json = nlohmann::json;

namespace {

// A safetensors byte image: 8-byte little-endian header length, header, data.
std::vector<uint8_t> image(const std::string& header, size_t dataBytes, uint64_t claimedLen = UINT64_MAX) {
  const uint64_t len = claimedLen == UINT64_MAX ? header.size() : claimedLen;
  std::vector<uint8_t> out(8 + header.size() + dataBytes, 0);
  for (size_t i = 0; i < 8; ++i) out[i] = uint8_t(len >> (8 * i));
  std::copy(header.begin(), header.end(), out.begin() + 8);
  return out;
}

QString errorOf(const std::vector<uint8_t>& bytes, const std::string& name = "w.safetensors") {
  try {
    parseSafetensorsHeader(bytes.data(), bytes.size(), name);
  } catch (const Error& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

json entry(const char* dtype, std::vector<int64_t> shape, uint64_t begin, uint64_t end) {
  return {{"dtype", dtype}, {"shape", shape}, {"data_offsets", {begin, end}}};
}

TensorData randomTensor(const std::string& name, DType dtype, std::vector<int64_t> shape, std::mt19937& rng) {
  int64_t numel = 1;
  for (int64_t d : shape) numel *= d;
  TensorData t{name, dtype, std::move(shape), {}};
  t.bytes.resize(size_t(numel) * dtypeSize(dtype));
  for (uint8_t& b : t.bytes) b = uint8_t(rng());
  return t;
}

}  // namespace

class TestSafetensors : public QObject {
  Q_OBJECT

 private slots:
  void roundTripsEveryDtype() {
    QTemporaryDir tmp;
    std::mt19937 rng(7);
    const std::vector<TensorData> tensors = {
        randomTensor("a.f32", DType::F32, {3, 5}, rng), randomTensor("b.f16", DType::F16, {7}, rng),
        randomTensor("c.bf16", DType::BF16, {2, 3, 4}, rng), randomTensor("d.scalar", DType::F32, {}, rng),
        randomTensor("e.empty", DType::F16, {0, 4}, rng)};
    const std::string path = tmp.filePath("m.safetensors").toStdString();
    writeSafetensors(path, tensors);
    const auto file = SafetensorsFile::open(path);
    QCOMPARE(file->tensors().size(), tensors.size());
    for (const TensorData& t : tensors) {
      const TensorView& v = file->tensors().at(t.name);
      QCOMPARE(v.name, t.name);
      QVERIFY(v.dtype == t.dtype);
      QCOMPARE(v.shape, t.shape);
      QCOMPARE(v.file, path);
      QCOMPARE(v.numBytes(), t.bytes.size());
      QVERIFY(t.bytes.empty() || std::memcmp(v.data, t.bytes.data(), t.bytes.size()) == 0);
    }
    // The header is padded with spaces so that the data section starts 8-byte aligned.
    std::ifstream in(path, std::ios::binary);
    uint8_t len[8];
    in.read(reinterpret_cast<char*>(len), 8);
    QCOMPARE(len[0] % 8, 0);
  }

  void writerRefusesInconsistentTensors() {
    QTemporaryDir tmp;
    const std::string path = tmp.filePath("x.safetensors").toStdString();
    QVERIFY_THROWS_EXCEPTION(Error, writeSafetensors(path, {{"a", DType::F32, {2}, std::vector<uint8_t>(4)}}));
    const TensorData a{"a", DType::F16, {2}, std::vector<uint8_t>(4)};
    QVERIFY_THROWS_EXCEPTION(Error, writeSafetensors(path, {a, a}));
  }

  void metadataIsAllowed() {
    const std::string h = json{{"__metadata__", {{"format", "pt"}}}, {"x", entry("F32", {2}, 0, 8)}}.dump();
    const auto bytes = image(h, 8);
    const auto tensors = parseSafetensorsHeader(bytes.data(), bytes.size(), "w.safetensors");
    QCOMPARE(tensors.size(), size_t(1));
    QVERIFY(tensors.at("x").data == bytes.data() + 8 + h.size());
  }

  void rejectsBadFiles_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("expected");  // a substring of the message
    auto row = [](const char* name, const std::vector<uint8_t>& b, const char* what) {
      QTest::newRow(name) << QByteArray(reinterpret_cast<const char*>(b.data()), qsizetype(b.size())) << QString(what);
    };
    row("shorter than 8 bytes", {1, 2, 3}, "too short");
    row("header length lies", image("{}", 0, 1000), "header length 1000 exceeds the file size");
    row("bad json", image("{\"x\": [", 0), "not valid JSON");
    row("not an object", image("[1,2]", 0), "must be a JSON object");
    row("end beyond data", image(json{{"t1", entry("F32", {4}, 0, 16)}}.dump(), 8), "tensor t1: data_offsets end 16");
    row("begin after end", image(json{{"t1", entry("F32", {0}, 8, 4)}}.dump(), 8), "tensor t1: data_offsets begin 8 > end 4");
    row("wrong byte count", image(json{{"t1", entry("F16", {3}, 0, 8)}}.dump(), 8), "tensor t1: shape [3] of F16 needs 6 bytes");
    row("overlap", image(json{{"t1", entry("F32", {2}, 0, 8)}, {"t2", entry("F32", {2}, 4, 12)}}.dump(), 12),
        "tensors t1 [0, 8) and t2 [4, 12) overlap");
    row("shape overflowing int64",
        image(json{{"t1", entry("F32", {int64_t(1) << 39, int64_t(1) << 39, int64_t(1) << 39}, 0, 8)}}.dump(), 8),
        "tensor t1: shape [549755813888, 549755813888, 549755813888] is larger than the data section");
    row("unsupported dtype", image(json{{"t1", entry("I64", {1}, 0, 8)}}.dump(), 8), "tensor t1: unsupported dtype I64");
    row("invalid dtype", image(json{{"t1", entry("Q4", {1}, 0, 8)}}.dump(), 8), "tensor t1: invalid dtype 'Q4'");
    row("negative dim", image(json{{"t1", entry("F32", {-1}, 0, 0)}}.dump(), 0), "tensor t1: shape [-1]");
    row("missing dtype", image(json{{"t1", {{"shape", {1}}, {"data_offsets", {0, 4}}}}}.dump(), 4), "tensor t1: missing string field 'dtype'");
    row("missing offsets", image(json{{"t1", {{"dtype", "F32"}, {"shape", {1}}}}}.dump(), 4), "tensor t1: 'data_offsets'");
    row("entry not object", image(json{{"t1", 5}}.dump(), 0), "tensor t1: entry must be a JSON object");
  }
  void rejectsBadFiles() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, expected);
    const std::vector<uint8_t> b(bytes.begin(), bytes.end());
    const QString msg = errorOf(b, "dir/w.safetensors");
    QVERIFY2(msg.startsWith("dir/w.safetensors: "), qPrintable(msg));
    QVERIFY2(msg.contains(expected), qPrintable(msg));
  }

  void headerOverLimit() {
    // A file claiming 300 MB whose header claims 200 MB: refused before reading it.
    const auto bytes = image("{}", 0, 200'000'000);
    try {
      parseSafetensorsHeader(bytes.data(), 300'000'000, "big.safetensors");
      QFAIL("no error");
    } catch (const Error& e) {
      QCOMPARE(QString(e.what()), QString("big.safetensors: header length 200000000 exceeds the 100 MB limit"));
    }
  }

  void truncatedFileOnDisk() {
    QTemporaryDir tmp;
    std::mt19937 rng(1);
    const std::string path = tmp.filePath("t.safetensors").toStdString();
    writeSafetensors(path, {randomTensor("w", DType::BF16, {16, 16}, rng)});
    std::filesystem::resize_file(path, std::filesystem::file_size(path) - 10);
    try {
      SafetensorsFile::open(path);
      QFAIL("no error");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains(QString::fromStdString(path + ": tensor w: data_offsets end 512")), e.what());
    }
    std::filesystem::resize_file(path, 0);
    QVERIFY_THROWS_EXCEPTION(Error, SafetensorsFile::open(path));
    QVERIFY_THROWS_EXCEPTION(Error, SafetensorsFile::open(tmp.filePath("absent.safetensors").toStdString()));
  }

  // Random corruption of a valid header never crashes: it parses or throws lwb::Error.
  void randomCorruptionOnlyThrows() {
    QTemporaryDir tmp;
    std::mt19937 rng(3);
    const std::string path = tmp.filePath("m.safetensors").toStdString();
    writeSafetensors(path, {randomTensor("a", DType::F32, {4, 4}, rng), randomTensor("b", DType::F16, {8}, rng)});
    std::ifstream in(path, std::ios::binary);
    const std::vector<uint8_t> good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    int rejected = 0;
    for (int i = 0; i < 2000; ++i) {
      std::vector<uint8_t> bad = good;
      const size_t headerEnd = 8 + size_t(good[0]) + 256 * size_t(good[1]);
      for (int k = 0; k < 1 + int(rng() % 3); ++k) bad[rng() % headerEnd] = uint8_t(rng());
      if (!errorOf(bad).isEmpty()) ++rejected;
    }
    QVERIFY(rejected > 1000);
  }

  void requireChecksShapes() {
    QTemporaryDir tmp;
    std::mt19937 rng(2);
    writeSafetensors(tmp.filePath("model.safetensors").toStdString(), {randomTensor("w", DType::F32, {2, 3}, rng)});
    const auto store = WeightStore::openFolder(tmp.path().toStdString());
    QCOMPARE(store->require("w", {2, 3}).numel(), int64_t(6));
    QCOMPARE(store->totalBytes(), size_t(24));
    QVERIFY(store->find("nope") == nullptr);
    const std::string file = tmp.filePath("model.safetensors").toStdString();
    QCOMPARE(store->describeLocation(), file);
    try {
      store->require("w", {3, 2});
      QFAIL("no error");
    } catch (const Error& e) {
      QCOMPARE(QString(e.what()), QString::fromStdString(file + ": tensor w: expected shape [3, 2], found [2, 3]"));
    }
    try {
      store->require("v", {4});
      QFAIL("no error");
    } catch (const Error& e) {
      QCOMPARE(QString(e.what()), QString::fromStdString(file + ": missing tensor v (expected shape [4])"));
    }
  }

  void opensShardedFolders() {
    QTemporaryDir tmp;
    std::mt19937 rng(4);
    const auto a = randomTensor("a", DType::F32, {4}, rng), b = randomTensor("b", DType::BF16, {2, 2}, rng),
               c = randomTensor("c", DType::F16, {3}, rng);
    writeSafetensors(tmp.filePath("model-00001-of-00002.safetensors").toStdString(), {a, b});
    writeSafetensors(tmp.filePath("model-00002-of-00002.safetensors").toStdString(), {c});
    json index = {{"metadata", {{"total_size", 26}}},
                  {"weight_map", {{"a", "model-00001-of-00002.safetensors"},
                                  {"b", "model-00001-of-00002.safetensors"},
                                  {"c", "model-00002-of-00002.safetensors"}}}};
    const QString indexPath = tmp.filePath("model.safetensors.index.json");
    std::ofstream(indexPath.toStdString()) << index.dump();
    const auto store = WeightStore::openFolder(tmp.path().toStdString());
    QCOMPARE(store->all().size(), size_t(3));
    QVERIFY(std::memcmp(store->find("c")->data, c.bytes.data(), c.bytes.size()) == 0);
    QVERIFY(QString::fromStdString(store->find("c")->file).endsWith("model-00002-of-00002.safetensors"));
    QCOMPARE(store->describeLocation(), tmp.path().toStdString() + " (2 shards)");

    // A tensor mapped to a shard that does not hold it.
    index["weight_map"]["c"] = "model-00001-of-00002.safetensors";
    std::ofstream(indexPath.toStdString()) << index.dump();
    expectFolderError(tmp.path(), "tensor c is mapped to model-00001-of-00002.safetensors, which does not contain it");
    // A shard that is missing.
    index["weight_map"]["c"] = "model-00003-of-00002.safetensors";
    std::ofstream(indexPath.toStdString()) << index.dump();
    expectFolderError(tmp.path(), "model-00003-of-00002.safetensors: cannot open");
    // Paths outside the folder are refused.
    index["weight_map"]["c"] = "../x.safetensors";
    std::ofstream(indexPath.toStdString()) << index.dump();
    expectFolderError(tmp.path(), "must be a file name in the model folder");
    std::ofstream(indexPath.toStdString()) << "{ not json";
    expectFolderError(tmp.path(), "model.safetensors.index.json: not valid JSON");
  }

  void emptyFolderListsWhatWasLookedFor() {
    QTemporaryDir tmp;
    expectFolderError(tmp.path(), "no weights found (looked for model.safetensors and model.safetensors.index.json)");
  }

 private:
  void expectFolderError(const QString& dir, const QString& expected) {
    try {
      WeightStore::openFolder(dir.toStdString());
      QFAIL("no error");
    } catch (const Error& e) {
      QVERIFY2(QString(e.what()).contains(expected), e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TestSafetensors)
#include "tst_safetensors.moc"
