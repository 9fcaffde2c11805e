//===- RuntimeTestFixture.h - The CPU runtime tests' fixture ---*- C++ -*-===//
//
// A fresh, empty kernel cache directory per test, and the dsl-examples'
// sources; shared by RuntimeTest.cpp and RuntimeCacheTest.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef KITE_UNITTESTS_RUNTIME_RUNTIMETESTFIXTURE_H
#define KITE_UNITTESTS_RUNTIME_RUNTIMETESTFIXTURE_H

#include "kite/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace kite;

inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string example(const std::string &name) {
  return readFile(std::string(KITE_SOURCE_DIR) + "/dsl-examples/" + name);
}

/// A fresh, empty cache directory per test.
class RuntimeTest : public ::testing::Test {
protected:
  void SetUp() override {
    char tmpl[] = "/tmp/kite-cache-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir = tmpl;
    setenv("KITE_CACHE_DIR", dir.c_str(), 1);
    unsetenv("KITE_CACHE_DISABLE");
    unsetenv("KITE_DUMP_IR");
    clearMemoryCache();
  }
  void TearDown() override {
    std::string cmd = "rm -rf '" + dir + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  std::vector<std::string> entries() {
    std::vector<std::string> names;
    if (DIR *d = opendir(dir.c_str())) {
      while (dirent *e = readdir(d))
        if (e->d_name[0] != '.' || std::string(e->d_name).rfind(".tmp", 0) == 0)
          names.push_back(e->d_name);
      closedir(d);
    }
    return names;
  }
  std::string dir;
};

#endif // KITE_UNITTESTS_RUNTIME_RUNTIMETESTFIXTURE_H
