"""What crosses processes: the HTTP server an owner runs and the client other processes use. No numpy, no Kùzu."""
