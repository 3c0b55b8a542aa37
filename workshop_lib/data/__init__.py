"""The workshop's data: the SUPPLYCHAIN sample schema and its rows, Part 5's product catalog,
and the world outline Part 1's map draws."""
