print("fixture-server")
