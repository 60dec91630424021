// The precompiled header of the test executables (tests/CMakeLists.txt): only system
// and Qt headers, which nearly every test parses and which change with the machine, not
// with the project. It saves seconds of parsing per test file, and the test files are a
// large share of what CI compiles. Each test still includes what it uses.
#pragma once

#include <QtTest>
#include <QtCore>
#include <nlohmann/json.hpp>
#ifdef QT_WIDGETS_LIB  // the window's tests (tst_ui_*)
#include <QtWidgets>
#include <qcustomplot.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>
