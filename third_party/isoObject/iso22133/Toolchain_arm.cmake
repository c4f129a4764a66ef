SET(CMAKE_SYSTEM_NAME Linux)
cmake_minimum_required(VERSION 3.10)
SET(CMAKE_C_COMPILER /usr/bin/arm-linux-gnueabihf-gcc)
SET(CMAKE_CXX_COMPILER /usr/bin/arm-linux-gnueabihf-g++)
