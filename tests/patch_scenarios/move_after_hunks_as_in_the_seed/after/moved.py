old
after
