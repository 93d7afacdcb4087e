#!/bin/sh
false
