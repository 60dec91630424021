// The engine layers' precompiled header (lwb_engine_pch in cmake/Layers.cmake names the
// layers that use it): nlohmann json and the standard headers that most of their files
// parse, compiled once. Each file still includes what it uses.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>
