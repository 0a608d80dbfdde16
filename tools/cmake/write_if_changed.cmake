# write_if_changed(PATH TEXT): writes TEXT to PATH unless PATH already holds exactly TEXT, so a
# generated header that did not change keeps its time stamp and recompiles nothing.
function(write_if_changed path text)
  if(EXISTS "${path}")
    file(READ "${path}" old)
    if(old STREQUAL text)
      return()
    endif()
  endif()
  file(WRITE "${path}" "${text}")
endfunction()
