"""`kgroup delete` and `kgroup delete-offsets`: the run layer over core's Kafka calls."""
