"""Games with oracle process verifiers: Sokoban, Sudoku, Minesweeper, Tic-tac-toe."""
