"""The mahjong-family game loop: kernel (``_loop``), bots (``_bots``), shared encodings."""
