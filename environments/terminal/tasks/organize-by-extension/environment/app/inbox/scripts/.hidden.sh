#!/bin/sh
echo hidden
