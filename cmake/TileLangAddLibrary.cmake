# add_tile_library(name SOURCES... [DEPENDS ...] [LINK_LIBS ...] [MLIR_LIBS ...])
#
# A library of the project. MLIR libraries go through MLIR_LIBS so that they
# resolve to libMLIR.so when TILE_LINK_MLIR_DYLIB is on and to the static
# archives otherwise. Every library is installed into the TileLangTargets
# export set, which `find_package(TileLang)` imports.
function(add_tile_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS;MLIR_LIBS" ${ARGN})
  add_mlir_library(${name}
    ${ARG_UNPARSED_ARGUMENTS}
    DISABLE_INSTALL
    EXCLUDE_FROM_LIBMLIR
    DEPENDS ${ARG_DEPENDS}
    LINK_LIBS PUBLIC ${ARG_LINK_LIBS}
  )
  mlir_target_link_libraries(${name} PUBLIC ${ARG_MLIR_LIBS})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${TILE_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${TILE_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:include>)
  set_property(GLOBAL APPEND PROPERTY TILE_EXPORTED_LIBRARIES ${name})
  install(TARGETS ${name} EXPORT TileLangTargets
    ARCHIVE DESTINATION lib
    LIBRARY DESTINATION lib)
endfunction()
