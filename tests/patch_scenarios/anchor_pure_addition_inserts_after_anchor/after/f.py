def a():
    """Docstring of a."""
    pass

def b():
    pass
