def greet(name):
    """Return a greeting for name."""
    return "Hello, " + nme + "!"


if __name__ == "__main__":
    print(greet("world"))
