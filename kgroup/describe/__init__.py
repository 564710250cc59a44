"""The describe engine (pure): group state + offsets + watermarks -> lag rows and totals."""
