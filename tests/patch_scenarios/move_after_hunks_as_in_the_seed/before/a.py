old
before
