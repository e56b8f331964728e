S He sleep .
A 1 2|||SVA|||sleeps|||REQUIRED|||-NONE-|||0

S She read .
X what is this
