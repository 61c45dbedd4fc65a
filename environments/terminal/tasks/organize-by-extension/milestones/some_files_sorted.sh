[ -f sorted/jpg/beach.JPG ] || [ -f sorted/txt/notes.txt ]
