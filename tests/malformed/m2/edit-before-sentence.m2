A 1 2|||SVA|||sleeps|||REQUIRED|||-NONE-|||0
S He sleep .
A 1 2|||SVA|||sleeps|||REQUIRED|||-NONE-|||0

