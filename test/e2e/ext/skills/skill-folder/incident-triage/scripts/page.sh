#!/bin/sh
echo "paging $1"
