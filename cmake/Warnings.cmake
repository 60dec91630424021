# Warnings on for the project's own targets; sanitizers when asked.
add_library(lwb_warnings INTERFACE)
target_compile_options(lwb_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wnon-virtual-dtor -Wno-missing-field-initializers>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wshadow=local>
  # GCC 12 reports impossible overlaps inside std::string's operator+ at -O3 (GCC bug 105329).
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wno-restrict>)

if(LLM_WORKBENCH_SANITIZE)
  add_compile_options(-fsanitize=${LLM_WORKBENCH_SANITIZE} -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=${LLM_WORKBENCH_SANITIZE})
  if(LLM_WORKBENCH_SANITIZE MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=undefined)
  endif()
endif()
