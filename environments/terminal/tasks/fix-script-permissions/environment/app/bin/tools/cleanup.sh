#!/bin/sh
echo cleaned
