#!/bin/sh
echo deployed
