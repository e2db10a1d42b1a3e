//===- onnx_external_data_test.cc - Weights kept in another file ----------===//
//
// ONNX's external data on the way in and out, quarry's weights file read a
// tensor at a time, and a model too large for memory refused before any of
// it is read.
//
//===----------------------------------------------------------------------===//
#include "onnx_builder.h"

#include "quarry/core/evaluate.h"
#include "quarry/core/file_io.h"
#include "quarry/core/float_domain.h"
#include "quarry/models/model_file.h"
#include "quarry/models/onnx.h"
#include "quarry/testing/error_of.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstring>
#include <filesystem>

namespace quarry {
namespace {

using namespace quarry::testing;
namespace fs = std::filesystem;

class ExternalData : public ::testing::Test {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("quarry_external_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string &name) const { return dir_ / name; }

  /// y = Conv(x, w) + b: a weight of 8x4x3x3 (1,152 bytes, external when
  /// asked) and a bias of 8 (32 bytes, always inline).
  static OnnxModel conv_model() {
    OnnxModel m(13);
    m.input("x", {1, 4, 6, 6}).output("y");
    std::vector<float> w(8 * 4 * 3 * 3);
    for (size_t i = 0; i < w.size(); ++i)
      w[i] = static_cast<float>(i % 17) / 16 - 0.5f;
    m.floats("w", {8, 4, 3, 3}, w);
    m.floats("b", {8}, {1, 2, 3, 4, 5, 6, 7, 8});
    m.node("Conv", {"x", "w", "b"}, {"y"});
    return m;
  }

  /// `m` with initializer `name` moved to external file `location` at
  /// `offset` (the file written with `pad` bytes before it, none after).
  void externalize(OnnxModel &m, const std::string &name,
                   const std::string &location, size_t pad = 0) {
    for (auto &t : *m.proto().mutable_graph()->mutable_initializer()) {
      if (t.name() != name)
        continue;
      std::string raw(static_cast<size_t>(t.float_data_size()) * 4, '\0');
      std::memcpy(raw.data(), t.float_data().data(), raw.size());
      t.clear_float_data();
      write_file_atomic(path(location), std::string(pad, 'p') + raw);
      t.set_data_location(onnx::TensorProto::EXTERNAL);
      for (auto [k, v] :
           {std::pair<std::string, std::string>{"location", location},
            {"offset", std::to_string(pad)},
            {"length", std::to_string(raw.size())}}) {
        auto *kv = t.add_external_data();
        kv->set_key(k);
        kv->set_value(v);
      }
    }
  }

  fs::path dir_;
};

TEST_F(ExternalData, AnInitializerIsReadFromItsFileAtItsOffset) {
  OnnxModel inline_model = conv_model();
  const Model want = import_onnx_bytes(inline_model.bytes(), "inline.onnx");
  OnnxModel m = conv_model();
  externalize(m, "w", "w.bin", 100);
  write_file_atomic(path("m.onnx"), m.bytes());
  const Model got = import_onnx(path("m.onnx"));
  EXPECT_EQ(got.weights, want.weights);
}

TEST_F(ExternalData, ExportWritesLargeTensorsBesideTheModelAndReadsThemBack) {
  const Model m = import_onnx_bytes(conv_model().bytes(), "conv.onnx");
  export_onnx(m, path("out.onnx"), 1, {.external_data = true});
  ASSERT_TRUE(fs::exists(path("out.onnx.data")));
  EXPECT_EQ(fs::file_size(path("out.onnx.data")), 8u * 4 * 3 * 3 * 4);
  onnx::ModelProto written;
  ASSERT_TRUE(written.ParseFromString(read_file_bytes(path("out.onnx"))));
  int external = 0, inline_ = 0;
  for (const auto &t : written.graph().initializer())
    (t.data_location() == onnx::TensorProto::EXTERNAL ? external : inline_)++;
  EXPECT_EQ(external, 1); // the weight; the bias stays inline
  EXPECT_EQ(inline_, 1);
  EXPECT_EQ(import_onnx(path("out.onnx")).weights, m.weights);
  // Without the option, a model this small is one file.
  export_onnx(m, path("one.onnx"), 1);
  EXPECT_FALSE(fs::exists(path("one.onnx.data")));
}

TEST_F(ExternalData, BadReferencesAreOneLineNamingTheModelAndTensor) {
  auto refused = [&](const std::function<void(OnnxModel &)> &change) {
    OnnxModel m = conv_model();
    externalize(m, "w", "w.bin");
    change(m);
    write_file_atomic(path("bad.onnx"), m.bytes());
    return error_of([&] { import_onnx(path("bad.onnx")); });
  };
  auto set = [](OnnxModel &m, const std::string &key, const std::string &v) {
    for (auto &t : *m.proto().mutable_graph()->mutable_initializer())
      for (auto &kv : *t.mutable_external_data())
        if (kv.key() == key)
          kv.set_value(v);
  };
  const std::string bad = path("bad.onnx") + ": tensor 'w': external data '";
  EXPECT_EQ(refused([&](OnnxModel &m) { set(m, "location", "gone.bin"); }),
            bad + path("gone.bin") + "' does not exist");
  EXPECT_EQ(refused([&](OnnxModel &) {
              write_file_atomic(path("w.bin"), std::string(1000, 'x'));
            }),
            bad + path("w.bin") +
                "' holds 1000 bytes, too few for bytes 0 to 1152 (truncated?)");
  EXPECT_EQ(refused([&](OnnxModel &m) { set(m, "length", "1000"); }),
            bad + path("w.bin") +
                "' gives length 1000 where shape and type need 1152 bytes");
  EXPECT_EQ(refused([&](OnnxModel &m) { set(m, "offset", "-4"); }),
            path("bad.onnx") +
                ": tensor 'w': external data offset '-4' is not a byte count");
  EXPECT_EQ(refused([&](OnnxModel &m) { set(m, "location", "../w.bin"); }),
            path("bad.onnx") + ": tensor 'w': external data '../w.bin' is not "
                               "a path inside the model's folder");
  EXPECT_EQ(refused([&](OnnxModel &m) { set(m, "location", "/etc/passwd"); }),
            path("bad.onnx") + ": tensor 'w': external data '/etc/passwd' is "
                               "not a path inside the model's folder");
  EXPECT_EQ(refused([&](OnnxModel &m) { set(m, "location", "."); }),
            bad + path(".") + "' is not a regular file");
}

TEST_F(ExternalData, AKeptOriginalTakesItsDataFilesAlong) {
  OnnxModel m = conv_model();
  externalize(m, "w", "w.bin");
  fs::create_directories(dir_ / "in");
  fs::create_directories(dir_ / "out");
  fs::rename(path("w.bin"), path("in/w.bin"));
  write_file_atomic(path("in/m.onnx"), m.bytes());
  const Model read = import_onnx(path("in/m.onnx"));
  write_model_unchanged(path("in/m.onnx"), read, path("out/m.onnx"));
  EXPECT_EQ(read_file_bytes(path("out/m.onnx")), m.bytes());
  EXPECT_EQ(read_file_bytes(path("out/w.bin")),
            read_file_bytes(path("in/w.bin")));
  EXPECT_EQ(import_onnx(path("out/m.onnx")).weights, read.weights);
  // Into the same folder, nothing is copied over itself.
  write_model_unchanged(path("in/m.onnx"), read, path("in/again.onnx"));
  EXPECT_EQ(import_onnx(path("in/again.onnx")).weights, read.weights);
}

TEST_F(ExternalData, AModelPastMemoryIsRefusedBeforeItsDataIsRead) {
  // A terabyte-scale tensor whose file does not exist: sizing comes first.
  OnnxModel m(13);
  m.input("x", {1}).output("y");
  auto *t = m.proto().mutable_graph()->add_initializer();
  t->set_name("huge");
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(1 << 20);
  t->add_dims(1 << 20);
  t->set_data_location(onnx::TensorProto::EXTERNAL);
  auto *kv = t->add_external_data();
  kv->set_key("location");
  kv->set_value("huge.bin");
  m.node("Add", {"x", "huge"}, {"y"});
  const std::string e =
      error_of([&] { import_onnx_bytes(m.bytes(), path("huge.onnx")); });
  EXPECT_EQ(e.rfind(path("huge.onnx") +
                        ": importing its weights (the largest, 'huge' "
                        "[1048576x1048576], 8.8 TB) needs about 26.4 TB, more "
                        "than this process may allocate: ",
                    0),
            0u)
      << e;
}

TEST_F(ExternalData, AWeightsFileCutMidTensorNamesTheWeight) {
  const Model m = import_onnx_bytes(conv_model().bytes(), "conv.onnx");
  save_model(m, path("m.qg"));
  const std::string whole = read_file_bytes(weights_path(path("m.qg")));
  ASSERT_EQ(load_graph_any(path("m.qg")).weights, m.weights);
  write_file_atomic(weights_path(path("m.qg")),
                    whole.substr(0, whole.size() - 10));
  const std::string e = error_of([&] { load_graph_any(path("m.qg")); });
  EXPECT_NE(e.find(weights_path(path("m.qg")) + ": weight #1 at byte "),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("is cut short or corrupt (truncated?)"), std::string::npos)
      << e;
}

} // namespace
} // namespace quarry
