S He sleep .
A 1 2|||SVA|||sleeps|||REQUIRED|||-NONE-|||0

S She read .
A 5 9|||Vt|||reads|||REQUIRED|||-NONE-|||0
