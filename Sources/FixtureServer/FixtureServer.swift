// Placeholder until the fixture server lands.
