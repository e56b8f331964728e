S My brother have many friend in the university .
A 2 3|||SVA|||has|||REQUIRED|||-NONE-|||0
A 4 5|||Nn|||friends|||REQUIRED|||-NONE-|||0
A 5 6|||Prep|||at|||REQUIRED|||-NONE-|||0

S Yesterday I go to market and buyed some vegetable .
A 2 3|||Vt|||went|||REQUIRED|||-NONE-|||0
A 4 4|||ArtOrDet|||the|||REQUIRED|||-NONE-|||0
A 6 7|||Vform|||bought|||REQUIRED|||-NONE-|||0
A 8 9|||Nn|||vegetables|||REQUIRED|||-NONE-|||0

S The goverment should pay more attention for the old peoples .
A 1 2|||Mec|||government|||REQUIRED|||-NONE-|||0
A 6 7|||Prep|||to|||REQUIRED|||-NONE-|||0
A 8 10|||Wci|||elderly|||REQUIRED|||-NONE-|||0

S Technology make our life more easier , however it also brings problems .
A 1 2|||SVA|||makes|||REQUIRED|||-NONE-|||0
A 3 4|||Nn|||lives|||REQUIRED|||-NONE-|||0
A 4 5|||Wform||||||REQUIRED|||-NONE-|||0
A 7 8|||Trans|||but|||REQUIRED|||-NONE-|||0

S She is very interesting in learn Japanese .
A 3 4|||Wform|||interested|||REQUIRED|||-NONE-|||0
A 5 6|||Vform|||learning|||REQUIRED|||-NONE-|||0

S In my opinion , the safety is the most important thing in the world of today .
A 4 5|||ArtOrDet||||||REQUIRED|||-NONE-|||0
A 11 16|||Rloc-|||today|||REQUIRED|||-NONE-|||0
A 12 16|||Wci|||today 's world|||REQUIRED|||-NONE-|||1
A 4 5|||ArtOrDet||||||REQUIRED|||-NONE-|||1

S Many student dont know how to use library .
A 1 2|||Nn|||students|||REQUIRED|||-NONE-|||0
A 2 3|||Mec|||do n't|||REQUIRED|||-NONE-|||0
A 7 7|||ArtOrDet|||the|||REQUIRED|||-NONE-|||0

S Although he was tired , but he finished the work .
A 5 6|||Trans||||||REQUIRED|||-NONE-|||0

S The price of houses are increasing every years .
A 4 5|||SVA|||is|||REQUIRED|||-NONE-|||0
A 6 8|||Nn|||every year||each year|||REQUIRED|||-NONE-|||0

S We must to protect the enviroment for our children .
A 2 3|||Vm||||||REQUIRED|||-NONE-|||0
A 5 6|||Mec|||environment|||REQUIRED|||-NONE-|||0

S I have been living here since five years .
A 5 6|||Prep|||for|||REQUIRED|||-NONE-|||0

S Students should be encouraged to express their ideas freely .
A -1 -1|||noop|||-NONE-|||REQUIRED|||-NONE-|||0

S He explained me the problem with a lot of patience .
A 2 2|||Prep|||to|||REQUIRED|||-NONE-|||0
A 1 4|||WOinc|||explained the problem to me|||REQUIRED|||-NONE-|||0
A 5 10|||Wci|||very patiently|||REQUIRED|||-NONE-|||0

S The number of car in this city increase fast in last decade .
A 3 4|||Nn|||cars|||REQUIRED|||-NONE-|||0
A 7 8|||Vt|||increased|||REQUIRED|||-NONE-|||0
A 8 9|||Wform|||rapidly|||REQUIRED|||-NONE-|||0
A 10 10|||ArtOrDet|||the|||REQUIRED|||-NONE-|||0
