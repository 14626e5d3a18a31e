print("prefetch")
