def a():
    pass

def b():
    pass
