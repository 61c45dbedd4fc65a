"""wordcount: count lines, words and bytes, like a small wc."""
