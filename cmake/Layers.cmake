# One static library per layer of the house (docs/architecture.md), and the mechanism
# that keeps includes pointing down: per-layer include roots.
#
# Every source includes project headers by their path from the repository root
# ("engine/kv/block_pool.h"), but no target sees the repository root. Each layer gets an
# include root in the build tree that holds only its own folder (a symbolic link to it),
# and a layer's library puts on the include path only its own root and, through
# target_link_libraries, the roots of the layers it DEPENDS on. An include of a layer
# that is not below fails to compile ("No such file or directory"), whether it names a
# function, a struct or a macro. tools/check-layers.py reads the DEPENDS lists from the
# lwb_layer() calls, so the build and the check share one declaration.
#
# lwb_layer(NAME [DEPENDS layer...] [OPTIONAL_DEPENDS layer...] [PUBLIC_LIBS lib...]
#           [PRIVATE_LIBS lib...] [SOURCES file...] [FILES_ONLY | PROGRAMS])
#   NAME              the layer's name; the library is lwb_NAME
#   DEPENDS           the layers it may include and link, by name (the order: lowest last)
#   OPTIONAL_DEPENDS  the same, linked when that layer is built (the window)
#   SOURCES           default: every .cpp under the folder of the calling CMakeLists.txt
#   FILES_ONLY        the layer is the folder's own files, not its subfolders (the engine
#                     root, whose subfolders are layers of their own)
#   PROGRAMS          a folder of programs (bench/, fuzz/): lwb_NAME is an interface
#                     library that the folder's executables link
function(lwb_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 L "FILES_ONLY;PROGRAMS" "" "DEPENDS;OPTIONAL_DEPENDS;PUBLIC_LIBS;PRIVATE_LIBS;SOURCES")
  file(RELATIVE_PATH folder ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  set(root ${CMAKE_BINARY_DIR}/include-roots/${name})
  if(L_FILES_ONLY)
    file(GLOB headers CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.h)
    file(REMOVE_RECURSE ${root})
    file(MAKE_DIRECTORY ${root}/${folder})
    foreach(h ${headers})
      get_filename_component(file ${h} NAME)
      file(CREATE_LINK ${h} ${root}/${folder}/${file} SYMBOLIC)
    endforeach()
  else()
    get_filename_component(parent ${root}/${folder} DIRECTORY)
    file(MAKE_DIRECTORY ${parent})
    file(CREATE_LINK ${CMAKE_CURRENT_SOURCE_DIR} ${root}/${folder} SYMBOLIC)
  endif()
  if(NOT L_SOURCES AND NOT L_PROGRAMS)
    if(L_FILES_ONLY)
      file(GLOB L_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
    else()
      file(GLOB_RECURSE L_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
    endif()
  endif()
  set(deps "")
  foreach(d ${L_DEPENDS})
    if(NOT TARGET lwb_${d})
      message(FATAL_ERROR "layer ${name} (${folder}) depends on '${d}', which is not a layer defined before it")
    endif()
    list(APPEND deps lwb_${d})
  endforeach()
  foreach(d ${L_OPTIONAL_DEPENDS})
    if(TARGET lwb_${d})
      list(APPEND deps lwb_${d})
    endif()
  endforeach()
  set_property(GLOBAL PROPERTY LWB_LAYER_DEPENDS_${name} ${L_DEPENDS})
  if(L_PROGRAMS)
    add_library(lwb_${name} INTERFACE)
    target_include_directories(lwb_${name} INTERFACE ${root})
    target_link_libraries(lwb_${name} INTERFACE ${deps} ${L_PUBLIC_LIBS} lwb_warnings)
    return()
  endif()
  add_library(lwb_${name} STATIC ${L_SOURCES})
  target_include_directories(lwb_${name} PUBLIC ${root})
  target_link_libraries(lwb_${name} PUBLIC ${deps} ${L_PUBLIC_LIBS} PRIVATE lwb_warnings ${L_PRIVATE_LIBS})
  set_target_properties(lwb_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  if(LLM_WORKBENCH_FUZZ AND NOT name MATCHES "^(ui|app|cli)$")
    # coverage for the fuzz targets (CMakeLists.txt)
    target_compile_options(lwb_${name} PRIVATE -fsanitize=fuzzer-no-link)
  endif()
endfunction()

# The hot paths (the CPU kernels, the sampler's row scans) at -O3 in Release; the rest of
# the build is -O2 (CMakeLists.txt). Default: every source of the target.
function(lwb_hot_sources target)
  if(LLM_WORKBENCH_SANITIZE)
    return()
  endif()
  set(globs ${ARGN})
  if(NOT globs)
    set(globs ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  endif()
  file(GLOB hot ${globs})
  set_source_files_properties(${hot} PROPERTIES COMPILE_OPTIONS $<$<CONFIG:Release>:-O3>)
endfunction()

# The engine's precompiled header (engine/common/engine_pch.h: nlohmann json and the
# standard library) for the layers that parse both and are built with the target's own
# flags. Compiled once, by lwb_common; the other layers reuse it.
function(lwb_engine_pch target)
  if(target STREQUAL "lwb_common")
    target_precompile_headers(lwb_common PRIVATE ${CMAKE_SOURCE_DIR}/engine/common/engine_pch.h)
  else()
    target_precompile_headers(${target} REUSE_FROM lwb_common)
  endif()
endfunction()

# The include roots of a layer and of every layer below it, for a target that must see
# the layer's headers without linking its library (the CUDA plugin of the exec layer).
function(lwb_include_roots name out)
  set(roots ${CMAKE_BINARY_DIR}/include-roots/${name})
  get_property(deps GLOBAL PROPERTY LWB_LAYER_DEPENDS_${name})
  foreach(d ${deps})
    lwb_include_roots(${d} below)
    list(APPEND roots ${below})
  endforeach()
  list(REMOVE_DUPLICATES roots)
  set(${out} ${roots} PARENT_SCOPE)
endfunction()
